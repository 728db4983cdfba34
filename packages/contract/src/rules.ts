import { z } from 'zod';
import {
  CALLSIGN_MAX_LENGTH,
  CALLSIGN_MIN_LENGTH,
  CALLSIGN_PATTERN,
  LOGIN_CODE_MAX_LENGTH,
  LOGIN_CODE_PATTERN,
} from './limits.js';

/**
 * A callsign: 3 to 30 letters and digits. The messages are the web app's
 * translation keys, so the web app can show them as they are.
 */
export const callsignSchema = z
  .string({ error: 'callsignsetup-callsign-required' })
  .min(1, { error: 'callsignsetup-callsign-required' })
  .min(CALLSIGN_MIN_LENGTH, { error: 'callsignsetup-callsign-min' })
  .max(CALLSIGN_MAX_LENGTH, { error: 'callsignsetup-callsign-max' })
  .regex(CALLSIGN_PATTERN, { error: 'callsignsetup-callsign-allowed-chars' });

/**
 * A one-time code as a person types it: upper-cased first (the login field upper-cases as typed,
 * and the server compares case-insensitively), then at least 8 of A-Z and 0-9.
 */
export const loginCodeSchema = z
  .string({ error: 'login-code-required' })
  .transform((value) => value.trim().toUpperCase())
  .pipe(
    z
      .string()
      .min(1, { error: 'login-code-required' })
      .max(LOGIN_CODE_MAX_LENGTH, { error: 'code-is-wrong' })
      .regex(LOGIN_CODE_PATTERN, { error: 'code-is-wrong' }),
  );

export type Callsign = z.infer<typeof callsignSchema>;

/**
 * True when `a` and `b` are the same callsign: a callsign is one whatever its case ("Alpha" and
 * "ALPHA" are the same member, as the server's unique indexes on lower(callsign) have it).
 */
export function sameCallsign(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
