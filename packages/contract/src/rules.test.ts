import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET } from './limits.js';
import { mtlsHost, publicHost } from './paths.js';
import { callsignSchema, loginCodeSchema } from './rules.js';

function firstError(result: { success: boolean; error?: { issues: { message: string }[] } }) {
  return result.error?.issues[0]?.message;
}

describe('callsignSchema', () => {
  it.each(['Ranger1', 'abc', 'A'.repeat(30), 'x9Y'])('accepts %j', (callsign) => {
    expect(callsignSchema.safeParse(callsign).success).toBe(true);
  });

  it.each([
    ['', 'callsignsetup-callsign-required'],
    ['ab', 'callsignsetup-callsign-min'],
    ['A'.repeat(31), 'callsignsetup-callsign-max'],
    ['Ranger 1', 'callsignsetup-callsign-allowed-chars'],
    ['Ränger1', 'callsignsetup-callsign-allowed-chars'],
    ['ranger-1', 'callsignsetup-callsign-allowed-chars'],
  ])('refuses %j with the key %s', (callsign, key) => {
    expect(firstError(callsignSchema.safeParse(callsign))).toBe(key);
  });

  it('refuses a value that is not a string as required', () => {
    expect(firstError(callsignSchema.safeParse(undefined))).toBe('callsignsetup-callsign-required');
  });
});

describe('loginCodeSchema', () => {
  it('upper-cases and trims what was typed', () => {
    expect(loginCodeSchema.parse(' abcd2345 ')).toBe('ABCD2345');
  });

  it.each([
    ['', 'login-code-required'],
    ['ABC1234', 'code-is-wrong'],
    ['ABCD-2345', 'code-is-wrong'],
    ['A'.repeat(65), 'code-is-wrong'],
  ])('refuses %j with the key %s', (code, key) => {
    expect(firstError(loginCodeSchema.safeParse(code))).toBe(key);
  });
});

describe('the code alphabet (docs/api.md)', () => {
  it('has no characters a person could misread', () => {
    for (const ambiguous of ['0', 'O', '1', 'I']) expect(CODE_ALPHABET).not.toContain(ambiguous);
    expect(new Set(CODE_ALPHABET).size).toBe(32);
  });
});

describe('host names of the two faces', () => {
  it('adds and removes the mtls prefix once', () => {
    expect(mtlsHost('portal.example.org')).toBe('mtls.portal.example.org');
    expect(mtlsHost('mtls.portal.example.org')).toBe('mtls.portal.example.org');
    expect(publicHost('mtls.portal.example.org')).toBe('portal.example.org');
    expect(publicHost('portal.example.org')).toBe('portal.example.org');
  });
});
