import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, type IssuedCertificate } from './authority.js';
import { loadTestCa } from './test-ca.testing.js';
import { makeTempDir, openssl, removeTempDir, runOpenssl } from './openssl-cli.testing.js';

const DAY_MS = 86_400_000;

let tmp: string;
let ca: CertificateAuthority;
let revoked: IssuedCertificate;
let valid: IssuedCertificate;
let files: { root: string; issuing: string; chain: string; crlPem: string; crlDer: string };
let crlPem: string;
let crlDer: Buffer;

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(tmp, name);
  await fs.writeFile(file, content);
  return file;
}

beforeAll(async () => {
  tmp = await makeTempDir();
  ca = await loadTestCa({
    dir: path.join(tmp, 'ca'),
    publicBaseUrl: 'https://portal.example.org',
  });
  [revoked, valid] = await Promise.all([
    ca.issueMemberCertificate({ callsign: 'Revoked1', validityDays: 30 }),
    ca.issueMemberCertificate({ callsign: 'Valid1', validityDays: 30 }),
  ]);
  const thisUpdate = new Date();
  const crl = await ca.createCrl({
    revoked: [
      // The TLS layer's uppercase form: the CA normalises it.
      { serial: revoked.serial.toUpperCase(), revokedAt: thisUpdate, reason: 'keyCompromise' },
      { serial: 'f00d', revokedAt: thisUpdate },
    ],
    crlNumber: 42n,
    thisUpdate,
    nextUpdate: new Date(thisUpdate.getTime() + DAY_MS),
  });
  crlPem = crl.pem;
  crlDer = crl.der;
  files = {
    root: await write('root.pem', ca.rootCertificatePem),
    issuing: await write('issuing.pem', ca.issuingCertificatePem),
    chain: await write('chain.pem', ca.chainPem),
    crlPem: await write('crl.pem', crl.pem),
    crlDer: await write('crl.der', crl.der),
  };
});

afterAll(() => removeTempDir(tmp));

async function verifyWithCrl(issued: IssuedCertificate) {
  const result = await runOpenssl([
    'verify',
    '-crl_check',
    '-CAfile',
    files.root,
    '-untrusted',
    files.issuing,
    '-CRLfile',
    files.crlPem,
    await write(`${issued.commonName}.pem`, issued.certificatePem),
  ]);
  return { code: result.code, output: result.stdout + result.stderr };
}

describe('createCrl', () => {
  it('writes PEM labelled X509 CRL, the same bytes as the DER form', () => {
    expect(crlPem.startsWith('-----BEGIN X509 CRL-----\n')).toBe(true);
    expect(crlPem.endsWith('-----END X509 CRL-----\n')).toBe(true);
    const body = crlPem.replace(/-----[A-Z0-9 ]+-----/g, '').replace(/\s+/g, '');
    expect(Buffer.from(body, 'base64')).toEqual(crlDer);
  });

  it('lists the revoked serials with their reasons, a CRL number and the issuer key id', async () => {
    const text = await openssl(['crl', '-in', files.crlPem, '-text', '-noout']);
    expect(text).toContain('Issuer: O = portal.example.org, CN = Callsign Portal Issuing CA');
    expect(text).toMatch(/CRL Number: \s+42\n/);
    expect(text).toMatch(
      new RegExp(
        `Serial Number: ${revoked.serial.toUpperCase()}\\n\\s+Revocation Date: .*\\n` +
          '\\s+CRL entry extensions:\\n\\s+X509v3 CRL Reason Code: \\n\\s+Key Compromise\\n',
      ),
    );
    // A serial with its top bit set is still a positive INTEGER; no reason means unspecified.
    expect(text).toMatch(/Serial Number: F00D\n\s+Revocation Date: [^\n]*\n\s+Signature Algorithm/);
    expect(text).not.toContain(valid.serial.toUpperCase());
    const issuingText = await openssl(['x509', '-in', files.issuing, '-noout', '-text']);
    const ski = /Subject Key Identifier: \s+([0-9A-F:]+)/.exec(issuingText)?.[1];
    expect(text).toMatch(new RegExp(`Authority Key Identifier: \\s+${ski!}\\n`));
  });

  it('is signed by the issuing CA', async () => {
    const result = await runOpenssl(['crl', '-in', files.crlPem, '-CAfile', files.chain, '-noout']);
    expect(result.stderr + result.stdout).toContain('verify OK');
    // The root alone cannot vouch for it: the signer is the issuing CA.
    const rootOnly = await runOpenssl([
      'crl',
      '-in',
      files.crlPem,
      '-CAfile',
      files.root,
      '-noout',
    ]);
    expect(rootOnly.stderr + rootOnly.stdout).not.toContain('verify OK');
  });

  it('makes openssl verify -crl_check reject the revoked certificate and accept the other', async () => {
    const rejected = await verifyWithCrl(revoked);
    expect(rejected.code).not.toBe(0);
    expect(rejected.output).toContain('certificate revoked');
    const accepted = await verifyWithCrl(valid);
    expect(accepted.output).toContain(': OK');
    expect(accepted.code).toBe(0);
  });

  it('parses in DER form', async () => {
    const output = await openssl([
      'crl',
      '-inform',
      'DER',
      '-in',
      files.crlDer,
      '-noout',
      '-crlnumber',
    ]);
    expect(output.trim()).toBe('crlNumber=0x2A');
  });

  it('can be empty, and takes large CRL numbers', async () => {
    const crl = await ca.createCrl({
      revoked: [],
      crlNumber: 2n ** 100n,
      nextUpdate: new Date(Date.now() + DAY_MS),
    });
    const text = await openssl([
      'crl',
      '-in',
      await write('empty.pem', crl.pem),
      '-text',
      '-noout',
    ]);
    expect(text).toContain('No Revoked Certificates.');
    expect(text).toMatch(new RegExp(`CRL Number: \\s+${(2n ** 100n).toString()}\\n`));
  });

  it('lists every one of thousands of revoked serials, and OpenSSL accepts its signature', async () => {
    const revokedAt = new Date();
    const serials = Array.from({ length: 5000 }, (_, index) =>
      (0x800000 + index).toString(16).padStart(8, '0'),
    );
    const crl = await ca.createCrl({
      revoked: serials.map((serial) => ({ serial, revokedAt })),
      crlNumber: 7n,
      nextUpdate: new Date(revokedAt.getTime() + DAY_MS),
    });
    const file = await write('large.pem', crl.pem);
    const text = await openssl(['crl', '-in', file, '-text', '-noout']);
    const listed = [...text.matchAll(/Serial Number: ([0-9A-F]+)/g)].map((match) =>
      match[1]?.toLowerCase(),
    );
    expect(listed).toEqual(serials.map((serial) => serial.replace(/^0+/, '')));
    const verified = await runOpenssl(['crl', '-in', file, '-CAfile', files.chain, '-noout']);
    expect(verified.stdout + verified.stderr).toContain('verify OK');
  });

  it('lets the event loop turn while it reads 20,000 entries, not one pass over them all', async () => {
    // Counts turns of the event loop, and for each entry read the count at that moment: entries
    // read in one synchronous pass all see the same count.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const seenAt = new Set<number>();
    const revokedAt = new Date();
    const entries = Array.from({ length: 20_000 }, (_, index) => ({
      get serial() {
        seenAt.add(turns);
        return (0x1000000 + index).toString(16);
      },
      revokedAt,
    }));
    try {
      const crl = await ca.createCrl({
        revoked: entries,
        crlNumber: 8n,
        nextUpdate: new Date(revokedAt.getTime() + DAY_MS),
      });
      expect(crl.der.length).toBeGreaterThan(20_000 * 20);
    } finally {
      counting = false;
    }
    // At most 4,096 entries a turn: at least 5 turns among the reads.
    expect(seenAt.size).toBeGreaterThanOrEqual(5);
  });

  it('rejects a negative CRL number and a nextUpdate before thisUpdate', async () => {
    await expect(
      ca.createCrl({ revoked: [], crlNumber: -1n, nextUpdate: new Date(Date.now() + DAY_MS) }),
    ).rejects.toThrow(RangeError);
    await expect(
      ca.createCrl({ revoked: [], crlNumber: 1n, nextUpdate: new Date(Date.now() - DAY_MS) }),
    ).rejects.toThrow(RangeError);
  });

  it('rejects a serial that is not hexadecimal, naming it', async () => {
    for (const serial of ['zz', 'ab\ncd', '']) {
      await expect(
        ca.createCrl({
          revoked: [
            { serial: '0a', revokedAt: new Date() },
            { serial, revokedAt: new Date() },
          ],
          crlNumber: 1n,
          nextUpdate: new Date(Date.now() + DAY_MS),
        }),
        serial,
      ).rejects.toThrow(
        new TypeError(`not a hexadecimal serial number: ${JSON.stringify(serial)}`),
      );
    }
  });
});
