import { randomBytes } from 'node:crypto';

/**
 * The one textual form of a certificate serial used across the portal (database, CRL input,
 * TLS lookups): lowercase hex of the positive integer, whole bytes, no leading zero bytes.
 * Accepts what OpenSSL and Node print (`0A1B...`, `0a:1b:...`, with or without a `00` sign byte).
 */
export function normalizeSerial(hex: string): string {
  const digits = hex.replace(/[\s:]/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(digits)) {
    throw new TypeError(`not a hexadecimal serial number: ${JSON.stringify(hex)}`);
  }
  const significant = digits.replace(/^0+/, '');
  if (significant === '') return '00';
  return significant.length % 2 === 0 ? significant : `0${significant}`;
}

/** A fresh 127-bit serial: 16 random bytes with the top bit cleared, so the INTEGER is positive. */
export function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return normalizeSerial(bytes.toString('hex'));
}
