import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from './authority.js';
import { buildCrlBundle, CrlBundleError } from './crl-bundle.js';
import { loadTestCa } from './test-ca.testing.js';
import { makeTempDir, openssl, removeTempDir } from './openssl-cli.testing.js';

const DAY_MS = 86_400_000;

let tmp: string;
let ca: CertificateAuthority;
let portalCrl: Buffer;
/** Another CA's CRL as `openssl ca -gencrl` writes it (TAK Server's own CA does so), PEM. */
let otherPem: string;
let otherDer: Buffer;
let otherCert: string;

beforeAll(async () => {
  tmp = await makeTempDir();
  ca = await loadTestCa({ dir: path.join(tmp, 'ca'), publicBaseUrl: 'http://portal.example.org' });
  const now = new Date();
  portalCrl = (
    await ca.createCrl({
      revoked: [{ serial: 'f00d', revokedAt: now }],
      crlNumber: 1n,
      nextUpdate: new Date(now.getTime() + 60 * DAY_MS),
    })
  ).der;
  const at = (name: string) => path.join(tmp, name);
  await openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', at('other.key'), '-out', at('other.pem'), '-subj', '/CN=TAK Server CA', '-days', '30',
  ]); // prettier-ignore
  await fs.writeFile(at('index.txt'), '');
  await fs.writeFile(at('crlnumber'), '01\n');
  await fs.writeFile(
    at('ca.cnf'),
    `[ca]\ndefault_ca=x\n[x]\ndatabase=${at('index.txt')}\ncrlnumber=${at('crlnumber')}\n` +
      'default_md=sha256\ndefault_crl_days=30\n',
  );
  await openssl([
    'ca', '-config', at('ca.cnf'), '-gencrl', '-keyfile', at('other.key'), '-cert', at('other.pem'),
    '-out', at('other.crl'),
  ]); // prettier-ignore
  otherPem = await fs.readFile(at('other.crl'), 'utf8');
  await openssl(['crl', '-in', at('other.crl'), '-outform', 'DER', '-out', at('other.der')]);
  otherDer = await fs.readFile(at('other.der'));
  otherCert = await fs.readFile(at('other.pem'), 'utf8');
});

afterAll(async () => {
  await removeTempDir(tmp);
});

const portal = () => [{ name: '/ca/crl.pem', bytes: portalCrl }];

describe('buildCrlBundle', () => {
  it("puts the portal's CRL first, then each other CRL (PEM or DER), as PEM", async () => {
    const bundle = buildCrlBundle({
      portal: portal(),
      also: [{ name: 'ca.crl', bytes: Buffer.from(otherPem) }],
      now: new Date(),
    });
    expect(bundle.crls.map((crl) => [crl.source, crl.issuer, crl.revoked])).toEqual([
      ['/ca/crl.pem', 'O=portal.example.org, CN=Callsign Portal Issuing CA', 1],
      ['ca.crl', 'CN=TAK Server CA', 0],
    ]);
    expect(bundle.pem.match(/-----BEGIN X509 CRL-----/g)).toHaveLength(2);
    const file = path.join(tmp, 'bundle.pem');
    await fs.writeFile(file, bundle.pem);
    // openssl reads the first CRL of a file: the portal's.
    expect(await openssl(['crl', '-in', file, '-noout', '-issuer'])).toContain(
      'Callsign Portal Issuing CA',
    );

    const fromDer = buildCrlBundle({
      portal: portal(),
      also: [{ name: 'ca.der', bytes: otherDer }],
      now: new Date(),
    });
    expect(fromDer.pem).toBe(bundle.pem);
  });

  it('keeps one copy of a CRL given twice', () => {
    const bundle = buildCrlBundle({
      portal: portal(),
      also: [
        { name: 'a.crl', bytes: Buffer.from(otherPem) },
        { name: 'b.der', bytes: otherDer },
      ],
      now: new Date(),
    });
    expect(bundle.crls).toHaveLength(2);
  });

  it('refuses what is not a CRL, and an expired CRL, naming the file', () => {
    const refused = (bytes: Buffer, now = new Date()) => {
      try {
        buildCrlBundle({ portal: portal(), also: [{ name: 'bad.crl', bytes }], now });
      } catch (error) {
        expect(error).toBeInstanceOf(CrlBundleError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused(Buffer.from(otherCert))).toBe('bad.crl: not a CRL (the PEM holds CERTIFICATE)');
    expect(refused(Buffer.from('garbage'))).toContain('bad.crl: not a CRL');
    const certDer = Buffer.from(
      otherCert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''),
      'base64',
    );
    expect(refused(certDer)).toContain('bad.crl: not a CRL');
    expect(refused(Buffer.alloc(0))).toContain('bad.crl: not a CRL');
    expect(refused(Buffer.from(otherPem), new Date(Date.now() + 31 * DAY_MS))).toMatch(
      /^bad\.crl: the CRL of CN=TAK Server CA expired at .* \(past its nextUpdate\)/,
    );
    expect(() =>
      buildCrlBundle({
        portal: [],
        also: [{ name: 'bad.crl', bytes: Buffer.from(otherPem) }],
        now: new Date(Date.now() - DAY_MS),
      }),
    ).toThrow(
      /^bad\.crl: the CRL of CN=TAK Server CA is not valid before .*check this machine's clock/,
    );
  });
});
