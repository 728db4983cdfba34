import { z } from 'zod';
import { callsignSchema } from '../rules.js';
import { LOGIN_CODE_MAX_LENGTH } from '../limits.js';

/**
 * Field schemas the calls share. Codes are compared case-insensitively: the server upper-cases
 * whatever arrives (docs/api.md).
 */
export const codeField = z
  .string()
  .trim()
  .min(1)
  .max(LOGIN_CODE_MAX_LENGTH)
  .regex(/^[A-Za-z0-9]+$/, { error: 'letters and digits only' })
  .transform((value) => value.toUpperCase());

export const callsignField = callsignSchema;

/** Approval codes are free text on the client; the server compares upper-cased. */
export const approvalCodeField = z.string().max(LOGIN_CODE_MAX_LENGTH);

export const successTrue = z.literal(true);

/**
 * Text a person typed on one line (a filter, a label): no control character. No keyboard sends
 * one, and PostgreSQL neither stores nor compares a NUL.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
export const TYPED_LINE = /^[^\u0000-\u001f\u007f]*$/;
/** Typed text that may run over lines (a reason): line breaks and tabs, no other control. */
// eslint-disable-next-line no-control-regex -- as above
export const TYPED_LINES = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
export const NO_CONTROL_CHARACTERS = { error: 'no control characters' } as const;

/** Times in answers: ISO 8601 in UTC. */
export const isoTime = z.iso.datetime();
