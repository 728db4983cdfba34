import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestCa } from '../ca/test-ca.testing.js';
import { makeTempDir, removeTempDir } from '../ca/openssl-cli.testing.js';
import { encodePem } from '../ca/pem.js';
import { PHONE_ROOTS, phoneTrustOf, type PhoneRoot } from './phone-trust.js';

// Whether phones trust the enrollment face's certificate by themselves. A test chain cannot be
// signed by a real root (nobody here holds a public root's key), so the decision function is
// tested with the real roots' fingerprints and key identifiers (checked against the real root
// certificates below) and with synthetic chains whose own root is added to the list or not.

const MOZILLA = '/usr/share/ca-certificates/mozilla';
const HOST = 'tak.example.org';
const NOW = new Date();
const DAY_MS = 86_400_000;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function entryOf(pem: string): PhoneRoot {
  const certificate = new X509Certificate(pem);
  const keyId = new x509.X509Certificate(certificate.raw).getExtension(
    x509.SubjectKeyIdentifierExtension,
  )?.keyId;
  return {
    name: /^CN=(.*)$/m.exec(certificate.subject)?.[1] ?? '',
    sha256: certificate.fingerprint256.replaceAll(':', '').toLowerCase(),
    keyId: keyId?.toLowerCase() ?? '',
  };
}

interface Made {
  pem: string;
  certificate: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

/** A certificate of the synthetic chain, signed by `issuer` (itself when absent). */
async function make(
  name: string,
  options: { issuer?: Made; ca: boolean; dns?: string; notAfter?: Date },
): Promise<Made> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const issuer = options.issuer;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(options.ca, undefined, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
  ];
  if (issuer !== undefined) {
    extensions.push(
      await x509.AuthorityKeyIdentifierExtension.create(
        issuer.certificate.publicKey,
        false,
        webcrypto,
      ),
    );
  }
  if (options.dns !== undefined) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: options.dns }]),
    );
  }
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: '01' + Math.floor(Math.random() * 1e9).toString(16),
      subject: `CN=${name}`,
      issuer: issuer?.certificate.subject ?? `CN=${name}`,
      notBefore: new Date(NOW.getTime() - DAY_MS),
      notAfter: options.notAfter ?? new Date(NOW.getTime() + 90 * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: (issuer?.keys ?? keys).privateKey,
      signingAlgorithm: ALGORITHM,
      extensions,
    },
    webcrypto,
  );
  return { pem: encodePem('CERTIFICATE', certificate.rawData), certificate, keys };
}

let root: Made;
let intermediate: Made;
let leaf: Made;
let synthetic: PhoneRoot;
let tmp: string;

beforeAll(async () => {
  root = await make('Synthetic Root', { ca: true });
  intermediate = await make('Synthetic Issuing CA', { issuer: root, ca: true });
  leaf = await make(HOST, { issuer: intermediate, ca: false, dns: HOST });
  synthetic = entryOf(root.pem);
  tmp = await makeTempDir();
});

afterAll(() => removeTempDir(tmp));

describe('the roots phones trust', () => {
  it.runIf(existsSync(MOZILLA))(
    'are the real root certificates: fingerprint and key id as in Mozilla’s list',
    () => {
      const missing: string[] = [];
      for (const listed of PHONE_ROOTS) {
        const file = path.join(MOZILLA, `${listed.name.replaceAll(' ', '_')}.crt`);
        if (!existsSync(file)) {
          missing.push(listed.name);
          continue;
        }
        expect(entryOf(readFileSync(file, 'utf8')), listed.name).toEqual({
          name: listed.commonName ?? listed.name,
          sha256: listed.sha256,
          keyId: listed.keyId,
        });
      }
      // ATAK's own DoD anchors are in no system store (their fingerprints: ATAK-CIV's assets).
      expect(missing.sort()).toEqual([
        'DOD ID SW CA-38',
        'DOD SW CA-54',
        'DOD SW CA-61',
        'DoD Root CA 3',
        'DoD Root CA 5',
      ]);
      const names = PHONE_ROOTS.map((listed) => listed.name);
      expect(names).toContain('ISRG Root X1');
      expect(names).toContain('ISRG Root X2');
      expect(names).toContain('DigiCert Global Root G2');
      expect(new Set(names).size).toBe(names.length);
    },
  );
});

describe('phoneTrustOf', () => {
  const chain = (...made: Made[]) => made.map((part) => part.pem).join('');
  const withSynthetic = () => [...PHONE_ROOTS, synthetic];

  it('is false for a chain that ends in a root phones do not hold', () => {
    expect(phoneTrustOf(chain(leaf, intermediate, root), { host: HOST, now: NOW })).toEqual({
      trusted: false,
      reason: 'unknown-root',
      chainEnd: 'Synthetic Root',
    });
    expect(phoneTrustOf(chain(leaf, intermediate), { host: HOST, now: NOW })).toEqual({
      trusted: false,
      reason: 'unknown-root',
      chainEnd: 'Synthetic Root',
    });
  });

  it('is true for a chain ending in one of the roots, sent with it or left out', () => {
    const options = { host: HOST, now: NOW, roots: withSynthetic() };
    expect(phoneTrustOf(chain(leaf, intermediate, root), options)).toEqual({
      trusted: true,
      root: 'Synthetic Root',
    });
    expect(phoneTrustOf(chain(leaf, intermediate), options)).toEqual({
      trusted: true,
      root: 'Synthetic Root',
    });
  });

  it('is false for another host, an expired leaf, a broken chain or no certificate', async () => {
    const roots = withSynthetic();
    expect(
      phoneTrustOf(chain(leaf, intermediate), { host: 'other.example.org', now: NOW, roots }),
    ).toEqual({ trusted: false, reason: 'wrong-host' });
    expect(
      phoneTrustOf(chain(leaf, intermediate), {
        host: HOST,
        now: new Date(NOW.getTime() + 91 * DAY_MS),
        roots,
      }),
    ).toEqual({ trusted: false, reason: 'expired' });
    // The leaf straight under the root: not what it says issued it.
    expect(phoneTrustOf(chain(leaf, root), { host: HOST, now: NOW, roots })).toEqual({
      trusted: false,
      reason: 'not-a-chain',
    });
    // An intermediate of another root with the same name as the one that signed the leaf.
    const impostor = await make('Synthetic Issuing CA', { issuer: root, ca: true });
    expect(phoneTrustOf(chain(leaf, impostor, root), { host: HOST, now: NOW, roots })).toEqual({
      trusted: false,
      reason: 'not-a-chain',
    });
    expect(phoneTrustOf('', { host: HOST, now: NOW, roots })).toEqual({
      trusted: false,
      reason: 'no-certificate',
    });
  });

  it('is false for a certificate of the portal’s own CA', async () => {
    const ca = await loadTestCa({
      dir: path.join(tmp, 'ca'),
      publicBaseUrl: 'http://portal.example.org',
    });
    const face = await ca.issueServerCertificate({ dnsNames: [HOST] });
    const verdict = phoneTrustOf(face.certificatePem + face.chainPem.join(''), {
      host: HOST,
      now: NOW,
    });
    expect(verdict).toEqual({
      trusted: false,
      reason: 'unknown-root',
      chainEnd: 'Callsign Portal Root CA',
    });
    // Without the root in what the face sends, the same.
    expect(
      phoneTrustOf(face.certificatePem + (face.chainPem[0] ?? ''), { host: HOST, now: NOW }),
    ).toEqual(verdict);
  });
});
