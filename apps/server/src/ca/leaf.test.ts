import { generateKeyPairSync, webcrypto, X509Certificate as NodeCertificate } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CertificateAuthority, SignedCertificate } from './authority.js';
import { createKeyPair, type GeneratedKeyPair } from './key-pair.js';
import { signLeaf, type LeafOrder } from './leaf.js';
import { Pkcs12Workers } from './pkcs12-workers.js';
import { loadTestCa } from './test-ca.testing.js';

// A member's certificate built and signed in a packing worker (`Pkcs12Workers.signLeaf`, the
// service's way) is the certificate the CA builds on its own thread: same fields, extensions and
// issuer; only the serial and the signature's bytes differ. Bad input comes back as an error.

const T = Date.UTC(2026, 10, 25, 12, 0, 0);

let ca: CertificateAuthority;
let workers: Pkcs12Workers;
let rsaKey: GeneratedKeyPair;
let ecKey: GeneratedKeyPair;

beforeAll(async () => {
  ca = await loadTestCa({
    dir: path.join(await mkdtemp(path.join(os.tmpdir(), 'leaf-')), 'ca'),
    publicBaseUrl: 'http://portal.example.org',
    now: () => new Date(T),
  });
  workers = new Pkcs12Workers(1);
  [rsaKey, ecKey] = await Promise.all([createKeyPair('rsa-2048'), createKeyPair('ecdsa-p256')]);
});

afterAll(async () => {
  await workers.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Everything of a certificate but its serial and the signature's bytes. */
function content(signed: SignedCertificate) {
  const certificate = new x509.X509Certificate(signed.certificatePem);
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    notBefore: certificate.notBefore.toISOString(),
    notAfter: certificate.notAfter.toISOString(),
    publicKey: Buffer.from(certificate.publicKey.rawData).toString('hex'),
    signatureAlgorithm: certificate.signatureAlgorithm,
    extensions: certificate.extensions.map((extension) =>
      Buffer.from(extension.rawData).toString('hex'),
    ),
    returned: {
      commonName: signed.commonName,
      notBefore: signed.notBefore.toISOString(),
      notAfter: signed.notAfter.toISOString(),
      chainPem: signed.chainPem,
    },
  };
}

function expectSignedByCa(signed: SignedCertificate): void {
  const certificate = new NodeCertificate(signed.certificatePem);
  const issuing = new NodeCertificate(ca.issuingCertificatePem);
  expect(certificate.checkIssued(issuing)).toBe(true);
  expect(certificate.verify(issuing.publicKey)).toBe(true);
  expect(signed.serial).toBe(certificate.serialNumber.toLowerCase().replace(/^(00)+/, ''));
}

describe('a member certificate signed in a packing worker', () => {
  it.each([
    ['RSA-2048', 'rsa-2048', () => rsaKey],
    ['EC P-256', 'ecdsa-p256', () => ecKey],
  ] as const)(
    'a key made here (%s): the same certificate as the CA’s own, none built on this thread',
    async (_name, keyAlgorithm, keyPair) => {
      const here = await ca.issueMemberCertificate({
        callsign: 'Same1',
        validityDays: 30,
        keyAlgorithm,
        keyPair: keyPair(),
      });
      const built = vi.spyOn(x509.X509CertificateGenerator, 'create');
      const signed = vi.spyOn(webcrypto.subtle, 'sign');
      const there = await ca.issueMemberCertificate({
        callsign: 'Same1',
        validityDays: 30,
        keyAlgorithm,
        keyPair: keyPair(),
        signing: workers,
      });
      expect(built).not.toHaveBeenCalled();
      expect(signed).not.toHaveBeenCalled();
      expect(content(there)).toEqual(content(here));
      expect(there.serial).not.toBe(here.serial);
      expect(there.privateKeyPem).toBe(here.privateKeyPem);
      expectSignedByCa(there);
    },
  );

  it('a device’s key with TAK’s channels EKU: the same certificate as the CA’s own', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const options = { callsign: 'Device1', validityDays: 30, publicKey, takChannels: true };
    const here = await ca.signMemberCertificate(options);
    const there = await ca.signMemberCertificate({ ...options, signing: workers });
    expect(content(there)).toEqual(content(here));
    expect(content(there).extensions).toHaveLength(7);
    expectSignedByCa(there);
  });

  it('a CA whose key is not a file (an HSM’s provider) signs on its own thread', async () => {
    // The same CA seen with another WebCrypto provider in front of its key.
    // (The issuing CA that signs new keys now: a plain object in place of the file-key signer.)
    const current = (ca as unknown as { current: { signer: object } }).current;
    const hsmLike = Object.create(ca) as CertificateAuthority;
    Object.defineProperty(hsmLike, 'current', {
      value: { ...current, signer: { ...current.signer } },
    });
    const signLeafThere = vi.spyOn(workers, 'signLeaf');
    const signed = await hsmLike.issueMemberCertificate({
      callsign: 'Hsm1',
      validityDays: 30,
      keyAlgorithm: 'ecdsa-p256',
      signing: workers,
    });
    expect(signLeafThere).not.toHaveBeenCalled();
    expectSignedByCa(signed);
  });
});

describe('Pkcs12Workers.signLeaf', () => {
  async function order(overrides: Partial<LeafOrder> = {}): Promise<LeafOrder> {
    // A CA key made non-extractable, as a file key is imported: it crosses to the worker as is.
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
    const keys = await webcrypto.subtle.generateKey(
      { ...algorithm, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
      false,
      ['sign', 'verify'],
    );
    const issuer = await x509.X509CertificateGenerator.createSelfSigned(
      { name: 'CN=Leaf Test CA', keys, signingAlgorithm: algorithm, serialNumber: '01' },
      webcrypto,
    );
    return {
      commonName: 'Order1',
      notBefore: T,
      notAfter: T + 86_400_000,
      publicKeyDer: ecKey.publicKeyDer,
      profile: { purpose: 'client', keyType: 'ec' },
      issuerDer: new Uint8Array(issuer.rawData),
      urls: { crl: 'http://x/crl', ocsp: 'http://x/ocsp', caIssuers: 'http://x/ca' },
      signingKey: keys.privateKey,
      signingAlgorithm: algorithm,
      ...overrides,
    };
  }

  it('answers the same leaf as this thread with a non-extractable key', async () => {
    const good = await order();
    const [there, here] = await Promise.all([workers.signLeaf(good), signLeaf(good)]);
    expect(there.notBefore).toEqual(here.notBefore);
    expect(there.notAfter).toEqual(here.notAfter);
    const certificate = new x509.X509Certificate(there.certificatePem);
    expect(certificate.subject).toBe('CN=Order1');
    expect(certificate.issuer).toBe('CN=Leaf Test CA');
  });

  it('answers bad input with a clear error, and goes on signing', async () => {
    // Not a public key: the input's TypeError, naming the certificate.
    const notAKey = workers.signLeaf(await order({ publicKeyDer: new Uint8Array([1, 2, 3]) }));
    await expect(notAKey).rejects.toThrow(TypeError);
    await expect(notAKey).rejects.toThrow(
      /^signing the certificate for "Order1" failed: Unsupported format of 'raw' argument/,
    );
    // A key that may not sign (a decryption key): WebCrypto's refusal, as an Error.
    const { privateKey } = await webcrypto.subtle.generateKey(
      {
        name: 'RSA-OAEP',
        hash: 'SHA-256',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
      },
      false,
      ['decrypt', 'encrypt'],
    );
    await expect(workers.signLeaf(await order({ signingKey: privateKey }))).rejects.toThrow(
      /^signing the certificate for "Order1" failed: /,
    );
    const after = await workers.signLeaf(await order());
    expect(new x509.X509Certificate(after.certificatePem).subject).toBe('CN=Order1');
  });
});
