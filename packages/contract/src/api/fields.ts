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
 * What typed text never holds, so that an admin reads what was stored: the control characters
 * (Unicode Cc: C0, DEL and C1; PostgreSQL neither stores nor compares a NUL), the bidi controls
 * that reorder what follows them on screen (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), the
 * invisible characters that make two texts look alike (U+200B–U+200D, U+2060, U+FEFF) and the
 * line and paragraph separators (U+2028/9). Written as ranges, not \p{Cc}, so the OpenAPI
 * document's patterns need no Unicode mode.
 */
const UNSAFE_IN_TEXT = String.raw`\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff`;
/** Text a person typed on one line (a filter, a label, a device's id). */
export const TYPED_LINE = new RegExp(`^[^${UNSAFE_IN_TEXT}]*$`);
/** Typed text that may run over lines (a reason): line breaks and tabs kept. */
export const TYPED_LINES = new RegExp(String.raw`^(?:[\t\n\r]|[^${UNSAFE_IN_TEXT}])*$`);
/** Each character typed text never holds, where it is found anyway (text stored before the rule). */
export const UNSAFE_CHARACTER = new RegExp(`[${UNSAFE_IN_TEXT}]`, 'g');
export const NO_CONTROL_CHARACTERS = { error: 'no control characters' } as const;

/** Times in answers: ISO 8601 in UTC. */
export const isoTime = z.iso.datetime();

/** A time (milliseconds since the epoch) as answers write it (`isoTime`): ISO 8601 in UTC. */
export function iso(time: number): string {
  return new Date(time).toISOString();
}
