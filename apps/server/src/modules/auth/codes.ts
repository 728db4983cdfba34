import { createHash, randomInt } from 'node:crypto';
import { CODE_ALPHABET } from '@callsign/contract';

/** A code of `length` characters from the unambiguous alphabet, from a CSPRNG. */
export function generateCode(length: number): string {
  let code = '';
  for (let index = 0; index < length; index += 1) {
    code += CODE_ALPHABET.charAt(randomInt(CODE_ALPHABET.length));
  }
  return code;
}

/**
 * Login codes are stored only as a hash (docs/api.md). They are upper-cased first because codes
 * compare case-insensitively. A plain SHA-256 suffices: a 12-character code from a 32-letter
 * alphabet carries 60 bits, is single use and expires.
 */
export function hashCode(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase(), 'utf8').digest('hex');
}
