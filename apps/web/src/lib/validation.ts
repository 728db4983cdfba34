import {
  CALLSIGN_MAX_LENGTH,
  CALLSIGN_MIN_LENGTH,
  CALLSIGN_PATTERN,
  LOGIN_CODE_MAX_LENGTH,
  LOGIN_CODE_PATTERN,
} from '@callsign/contract';

/**
 * The login and callsign validation rules as plain functions (zod stays out of the login
 * bundle). Each returns its message's translation key, or undefined when the value is fine.
 */
export type LoginCodeError = 'login-code-required' | 'code-is-wrong';
export type CallsignError =
  | 'callsignsetup-callsign-required'
  | 'callsignsetup-callsign-min'
  | 'callsignsetup-callsign-max'
  | 'callsignsetup-callsign-allowed-chars';

export function normalizeCode(value: string): string {
  return value.toUpperCase();
}

export function validateLoginCode(value: string): LoginCodeError | undefined {
  const code = value.trim();
  if (code === '') return 'login-code-required';
  if (code.length > LOGIN_CODE_MAX_LENGTH || !LOGIN_CODE_PATTERN.test(code)) return 'code-is-wrong';
  return undefined;
}

export function validateCallsign(value: string): CallsignError | undefined {
  if (value === '') return 'callsignsetup-callsign-required';
  if (value.length < CALLSIGN_MIN_LENGTH) return 'callsignsetup-callsign-min';
  if (value.length > CALLSIGN_MAX_LENGTH) return 'callsignsetup-callsign-max';
  if (!CALLSIGN_PATTERN.test(value)) return 'callsignsetup-callsign-allowed-chars';
  return undefined;
}
