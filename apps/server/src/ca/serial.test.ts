import { X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, selfSignedCertificate } from './openssl-cli.testing.js';
import { normalizeSerial, randomSerial } from './serial.js';

describe('normalizeSerial', () => {
  it.each([
    ['0A1B2C', '0a1b2c'],
    ['A1B2C', '0a1b2c'],
    ['00F001', 'f001'],
    ['00:f0:01', 'f001'],
    ['7f 00', '7f00'],
    ['0000', '00'],
    ['5512c8197d71a081cac20b38261511e9', '5512c8197d71a081cac20b38261511e9'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeSerial(input)).toBe(expected);
  });

  it.each(['', 'xyz', '12-34', '0x12'])('rejects %j', (input) => {
    expect(() => normalizeSerial(input)).toThrow(TypeError);
  });
});

describe('normalizeSerial on the serial form Node and its TLS layer report', () => {
  let tmp: string | undefined;
  afterAll(() => removeTempDir(tmp));
  beforeAll(async () => {
    tmp = await makeTempDir();
  });

  // Node's X509Certificate.serialNumber and tls getPeerCertificate().serialNumber come from the
  // same OpenSSL call: uppercase, whole bytes, no sign byte (the TLS path is tested end to end in
  // authority.test.ts).
  it.each([
    ['0x0fab01', '0fab01'],
    ['0xf00d', 'f00d'],
    ['0x7f0000000000000000000000000000ff', '7f0000000000000000000000000000ff'],
  ])('a certificate with serial %s normalises to %s', async (serial, expected) => {
    const dir = tmp!;
    const certFile = await selfSignedCertificate(dir, serial, {
      subject: '/CN=serial-test',
      serial,
    });
    const nodeForm = new X509Certificate(await fs.readFile(certFile)).serialNumber;
    expect(nodeForm).toBe(nodeForm.toUpperCase());
    expect(normalizeSerial(nodeForm)).toBe(expected);
  });
});

describe('randomSerial', () => {
  it('is a positive 16-byte integer in normalised form, and never repeats', () => {
    const serials = Array.from({ length: 2000 }, () => randomSerial());
    for (const serial of serials) {
      expect(serial).toMatch(/^(?:[0-9a-f]{2}){1,16}$/);
      expect(serial.startsWith('00')).toBe(false);
      expect(normalizeSerial(serial)).toBe(serial);
      if (serial.length === 32) expect(Number.parseInt(serial.slice(0, 2), 16)).toBeLessThan(0x80);
    }
    expect(new Set(serials).size).toBe(serials.length);
    // The top bit is cleared, the rest is random: most serials use all 16 bytes.
    expect(serials.filter((serial) => serial.length === 32).length).toBeGreaterThan(1900);
  });
});
