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

/** Times in answers: ISO 8601 in UTC. */
export const isoTime = z.iso.datetime();
