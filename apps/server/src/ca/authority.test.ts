import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority, type IssuedCertificate } from './authority.js';
import { CA_FILES } from './ca-files.js';
import { UnsupportedPublicKeyError } from './key-pair.js';
import {
  makeTempDir,
  openssl,
  publicKeyOfCertificate,
  publicKeyOfPrivateKey,
  removeTempDir,
  runOpenssl,
  tempFileWriter,
} from './openssl-cli.testing.js';
import { normalizeSerial } from './serial.js';

/** What the portal passes: the plain-http origin of its CA files (config.httpCaOrigin). */
const BASE_URL = 'http://portal.example.org';
const DAY_MS = 86_400_000;

let tmp: string;
let dir: string;
let ca: CertificateAuthority;
let rootFile: string;
let issuingFile: string;
const writeTemp = tempFileWriter(() => tmp);

/** `openssl verify` against the CA written at start-up; resolves with its output and exit code. */
async function verify(certificatePem: string, ...options: string[]) {
  const leaf = await writeTemp(certificatePem);
  const result = await runOpenssl([
    'verify',
    '-CAfile',
    rootFile,
    '-untrusted',
    issuingFile,
    ...options,
    leaf,
  ]);
  return { code: result.code, output: result.stdout + result.stderr };
}

async function certificateText(pem: string): Promise<string> {
  return openssl(['x509', '-in', await writeTemp(pem), '-noout', '-text']);
}

/** The validity as `openssl x509 -text` prints it. */
function validityOf(text: string): { notBefore: number; notAfter: number } {
  const field = (name: string) => Date.parse(new RegExp(`${name}: (.+)\n`).exec(text)?.[1] ?? '');
  return { notBefore: field('Not Before'), notAfter: field('Not After ') };
}

function years(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / (365.25 * DAY_MS);
}

beforeAll(async () => {
  tmp = await makeTempDir();
  dir = path.join(tmp, 'data', 'ca');
  ca = await CertificateAuthority.loadOrCreate({ dir, publicBaseUrl: `${BASE_URL}/` });
  rootFile = await writeTemp(ca.rootCertificatePem);
  issuingFile = await writeTemp(ca.issuingCertificatePem);
});

afterAll(() => removeTempDir(tmp));

describe('the CA directory', () => {
  it('holds exactly the four CA files: keys 0600, certificates PEM, the directory 0700', async () => {
    expect((await fs.readdir(dir)).sort()).toEqual(Object.values(CA_FILES).sort());
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    for (const key of [CA_FILES.rootKey, CA_FILES.issuingKey]) {
      expect((await fs.stat(path.join(dir, key))).mode & 0o777).toBe(0o600);
      const pem = await fs.readFile(path.join(dir, key), 'utf8');
      expect(pem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    }
    expect(await fs.readFile(path.join(dir, CA_FILES.rootCertificate), 'utf8')).toBe(
      ca.rootCertificatePem,
    );
    expect(await fs.readFile(path.join(dir, CA_FILES.issuingCertificate), 'utf8')).toBe(
      ca.issuingCertificatePem,
    );
  });

  it('has a 20-year RSA-4096 root that signs a 5-year RSA-3072 issuing CA with pathlen 0', async () => {
    const rootText = await certificateText(ca.rootCertificatePem);
    expect(rootText).toContain('Public-Key: (4096 bit)');
    expect(rootText).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(rootText).toMatch(/Basic Constraints: critical\s+CA:TRUE\n/);
    expect(rootText).toMatch(/Key Usage: critical\s+Certificate Sign, CRL Sign\n/);
    expect(rootText).toContain('Subject: O = portal.example.org, CN = Callsign Portal Root CA');
    expect(rootText).toContain('Issuer: O = portal.example.org, CN = Callsign Portal Root CA');

    const issuingText = await certificateText(ca.issuingCertificatePem);
    expect(issuingText).toContain('Public-Key: (3072 bit)');
    expect(issuingText).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0\n/);
    expect(issuingText).toMatch(
      /Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/,
    );
    expect(issuingText).toContain('Issuer: O = portal.example.org, CN = Callsign Portal Root CA');

    const root = new X509Certificate(ca.rootCertificatePem);
    const issuing = new X509Certificate(ca.issuingCertificatePem);
    expect(years(new Date(root.validFrom), new Date(root.validTo))).toBeCloseTo(20, 1);
    expect(years(new Date(issuing.validFrom), new Date(issuing.validTo))).toBeCloseTo(5, 1);
    expect(await runOpenssl(['verify', '-CAfile', rootFile, issuingFile])).toMatchObject({
      code: 0,
    });
  });

  it('serves the chain as issuing CA then root, PEM and DER', () => {
    expect(ca.chainPem).toBe(ca.issuingCertificatePem + ca.rootCertificatePem);
    expect(ca.chainPem.endsWith('-----END CERTIFICATE-----\n')).toBe(true);
    const [issuingDer, rootDer] = ca.chainDer();
    expect(issuingDer).toEqual(new X509Certificate(ca.issuingCertificatePem).raw);
    expect(rootDer).toEqual(new X509Certificate(ca.rootCertificatePem).raw);
  });

  it('keeps the CA across a restart: certificates issued before it still verify', async () => {
    const before = await ca.issueMemberCertificate({ callsign: 'BEFORE1', validityDays: 30 });
    const reloaded = await CertificateAuthority.loadOrCreate({ dir, publicBaseUrl: BASE_URL });
    expect(reloaded.rootCertificatePem).toBe(ca.rootCertificatePem);
    expect(reloaded.issuingCertificatePem).toBe(ca.issuingCertificatePem);

    const reloadedRoot = await writeTemp(reloaded.rootCertificatePem);
    const reloadedIssuing = await writeTemp(reloaded.issuingCertificatePem);
    const after = await reloaded.issueMemberCertificate({ callsign: 'AFTER1', validityDays: 30 });
    for (const issued of [before, after]) {
      const result = await runOpenssl([
        'verify',
        '-CAfile',
        reloadedRoot,
        '-untrusted',
        reloadedIssuing,
        await writeTemp(issued.certificatePem),
      ]);
      expect(result.stdout).toContain(': OK');
    }
  });

  it('lets only one of two simultaneous first starts write the CA', async () => {
    const raceDir = path.join(tmp, 'race-ca');
    const start = () =>
      CertificateAuthority.loadOrCreate({ dir: raceDir, publicBaseUrl: BASE_URL });
    const results = await Promise.allSettled([start(), start()]);
    const winners = results.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    );
    const losers = results.flatMap((result) =>
      result.status === 'rejected' ? [String(result.reason)] : [],
    );
    expect(winners).toHaveLength(1);
    expect(losers).toEqual([expect.stringMatching(/another process is creating it/)]);
    expect((await fs.readdir(raceDir)).sort()).toEqual(Object.values(CA_FILES).sort());
    const reloaded = await CertificateAuthority.loadOrCreate({
      dir: raceDir,
      publicBaseUrl: BASE_URL,
    });
    expect(reloaded.rootCertificatePem).toBe(winners[0]!.rootCertificatePem);
    expect(reloaded.issuingCertificatePem).toBe(winners[0]!.issuingCertificatePem);
  });

  it('refuses a partial CA rather than creating a new one over it', async () => {
    const partial = path.join(tmp, 'partial-ca');
    await fs.cp(dir, partial, { recursive: true });
    await fs.rm(path.join(partial, CA_FILES.issuingCertificate));
    await expect(
      CertificateAuthority.loadOrCreate({ dir: partial, publicBaseUrl: BASE_URL }),
    ).rejects.toThrow(/partial certificate authority.*missing: issuing-ca\.pem/s);
    expect((await fs.readdir(partial)).sort()).toEqual(
      [CA_FILES.issuingKey, CA_FILES.rootCertificate, CA_FILES.rootKey].sort(),
    );
  });

  it('refuses an issuing key that does not belong to the issuing certificate', async () => {
    const mixed = path.join(tmp, 'mixed-ca');
    await fs.cp(dir, mixed, { recursive: true });
    await openssl([
      'genpkey',
      '-algorithm',
      'RSA',
      '-pkeyopt',
      'rsa_keygen_bits:2048',
      '-out',
      path.join(mixed, CA_FILES.issuingKey),
    ]);
    await expect(
      CertificateAuthority.loadOrCreate({ dir: mixed, publicBaseUrl: BASE_URL }),
    ).rejects.toThrow(/does not belong to the certificate/);
  });

  it('refuses to load unencrypted keys when a passphrase is configured', async () => {
    await expect(
      CertificateAuthority.loadOrCreate({ dir, publicBaseUrl: BASE_URL, passphrase: 'secret' }),
    ).rejects.toThrow(/not encrypted/);
  });
});

describe('a CA with a passphrase', () => {
  const passphrase = 'correct horse battery staple';
  let encryptedDir: string;
  let encrypted: CertificateAuthority;

  beforeAll(async () => {
    encryptedDir = path.join(tmp, 'encrypted-ca');
    encrypted = await CertificateAuthority.loadOrCreate({
      dir: encryptedDir,
      publicBaseUrl: BASE_URL,
      passphrase,
    });
  });

  it('writes both keys as encrypted PKCS#8 that only the passphrase opens', async () => {
    for (const key of [CA_FILES.rootKey, CA_FILES.issuingKey]) {
      const file = path.join(encryptedDir, key);
      expect(await fs.readFile(file, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const right = await runOpenssl([
        'pkey',
        '-in',
        file,
        '-passin',
        `pass:${passphrase}`,
        '-noout',
      ]);
      expect(right.code).toBe(0);
      const wrong = await runOpenssl(['pkey', '-in', file, '-passin', 'pass:wrong', '-noout']);
      expect(wrong.code).not.toBe(0);
    }
  });

  it('loads only with the right passphrase', async () => {
    await expect(
      CertificateAuthority.loadOrCreate({ dir: encryptedDir, publicBaseUrl: BASE_URL }),
    ).rejects.toThrow(/encrypted: configure the CA passphrase/);
    await expect(
      CertificateAuthority.loadOrCreate({
        dir: encryptedDir,
        publicBaseUrl: BASE_URL,
        passphrase: 'wrong',
      }),
    ).rejects.toThrow(/wrong passphrase/);
    const reloaded = await CertificateAuthority.loadOrCreate({
      dir: encryptedDir,
      publicBaseUrl: BASE_URL,
      passphrase,
    });
    expect(reloaded.issuingCertificatePem).toBe(encrypted.issuingCertificatePem);
    const issued = await reloaded.issueMemberCertificate({ callsign: 'SECRET1', validityDays: 1 });
    const result = await runOpenssl([
      'verify',
      '-CAfile',
      await writeTemp(reloaded.rootCertificatePem),
      '-untrusted',
      await writeTemp(reloaded.issuingCertificatePem),
      await writeTemp(issued.certificatePem),
    ]);
    expect(result.stdout).toContain(': OK');
  });
});

describe('member certificates', () => {
  let rsa: IssuedCertificate;
  let issuedAt: number;

  beforeAll(async () => {
    issuedAt = Date.now();
    rsa = await ca.issueMemberCertificate({ callsign: 'Alpha1', validityDays: 365 });
  });

  it('verify against the chain for client authentication', async () => {
    const result = await verify(rsa.certificatePem, '-purpose', 'sslclient');
    expect(result.output).toContain(': OK');
    expect(result.code).toBe(0);
    expect(await verify(rsa.certificatePem, '-purpose', 'sslserver')).toMatchObject({ code: 2 });
  });

  it('carry the member profile: CN, RSA-2048, key usage, clientAuth, CRL and OCSP URLs', async () => {
    const text = await certificateText(rsa.certificatePem);
    expect(text).toContain('Subject: CN = Alpha1\n');
    expect(text).toContain('Issuer: O = portal.example.org, CN = Callsign Portal Issuing CA');
    expect(text).toContain('Public Key Algorithm: rsaEncryption');
    expect(text).toContain('Public-Key: (2048 bit)');
    expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE\n/);
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
    expect(text).toMatch(/Extended Key Usage: \s+TLS Web Client Authentication\n/);
    expect(text).toMatch(
      /CRL Distribution Points: \s+Full Name:\s+URI:http:\/\/portal\.example\.org\/ca\/crl\.der\n/,
    );
    expect(text).toContain('OCSP - URI:http://portal.example.org/ca/ocsp\n');
    expect(text).toContain('CA Issuers - URI:http://portal.example.org/ca/issuing-ca.der\n');
    const issuerSki = /Subject Key Identifier: \s+([0-9A-F:]+)/.exec(
      await certificateText(ca.issuingCertificatePem),
    )?.[1];
    expect(issuerSki).toBeDefined();
    expect(text).toMatch(new RegExp(`Authority Key Identifier: \\s+${issuerSki!}\\n`));
    expect(text).toMatch(/Subject Key Identifier: \s+[0-9A-F:]{59}\n/);
  });

  it('report the serial, names and validity the certificate holds', async () => {
    const opensslSerial = (
      await openssl(['x509', '-in', await writeTemp(rsa.certificatePem), '-noout', '-serial'])
    )
      .trim()
      .replace('serial=', '');
    expect(rsa.serial).toBe(normalizeSerial(opensslSerial));
    expect(rsa.serial).toMatch(/^[0-9a-f]+$/);
    expect(rsa.serial.startsWith('00')).toBe(false);
    expect(rsa.serial.length).toBeLessThanOrEqual(32);
    expect(rsa.serial).toBe(normalizeSerial(new X509Certificate(rsa.certificatePem).serialNumber));
    expect(rsa.commonName).toBe('Alpha1');
    // Backdated 12 hours by default (TAK Server's value) for phones with a slow clock; seconds
    // precision in the certificate.
    expect(Math.abs(rsa.notBefore.getTime() - (issuedAt - 720 * 60_000))).toBeLessThan(5_000);
    const printed = validityOf(await certificateText(rsa.certificatePem));
    expect(Math.abs(printed.notBefore - (issuedAt - 12 * 3_600_000))).toBeLessThan(5_000);
    expect(Math.abs(printed.notAfter - (issuedAt + 365 * DAY_MS))).toBeLessThan(5_000);
    expect(Math.abs(rsa.notAfter.getTime() - (issuedAt + 365 * DAY_MS))).toBeLessThan(5_000);
    const node = new X509Certificate(rsa.certificatePem);
    expect(new Date(node.validFrom)).toEqual(rsa.notBefore);
    expect(new Date(node.validTo)).toEqual(rsa.notAfter);
    expect(rsa.chainPem).toEqual([ca.issuingCertificatePem, ca.rootCertificatePem]);
  });

  it('come with their PKCS#8 private key', async () => {
    expect(rsa.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(await publicKeyOfPrivateKey(rsa.privateKeyPem)).toBe(
      await publicKeyOfCertificate(rsa.certificatePem),
    );
  });

  it('use ECDSA P-256 when asked, with digitalSignature only', async () => {
    const ec = await ca.issueMemberCertificate({
      callsign: 'Bravo2',
      validityDays: 30,
      keyAlgorithm: 'ecdsa-p256',
    });
    const text = await certificateText(ec.certificatePem);
    expect(text).toContain('Public Key Algorithm: id-ecPublicKey');
    expect(text).toContain('NIST CURVE: P-256');
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature\n/);
    expect(text).toContain('TLS Web Client Authentication');
    expect((await verify(ec.certificatePem, '-purpose', 'sslclient')).output).toContain(': OK');
    expect(await publicKeyOfPrivateKey(ec.privateKeyPem)).toBe(
      await publicKeyOfCertificate(ec.certificatePem),
    );
  });

  it('sign a key made elsewhere (a CSR’s) with the same profile, and refuse a weak one', async () => {
    const ecKey = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey;
    const ec = await ca.signMemberCertificate({
      callsign: 'Device3',
      validityDays: 30,
      publicKey: ecKey,
    });
    expect(ec).not.toHaveProperty('privateKeyPem');
    const ecText = await certificateText(ec.certificatePem);
    expect(ecText).toContain('Subject: CN = Device3\n');
    expect(ecText).toContain('NIST CURVE: P-384');
    expect(ecText).toMatch(/Key Usage: critical\s+Digital Signature\n/);
    expect(ecText).toContain('TLS Web Client Authentication');
    expect((await verify(ec.certificatePem, '-purpose', 'sslclient')).output).toContain(': OK');
    expect(new X509Certificate(ec.certificatePem).publicKey.equals(ecKey)).toBe(true);

    const rsaKey = generateKeyPairSync('rsa', { modulusLength: 3072 }).publicKey;
    const signed = await ca.signMemberCertificate({
      callsign: 'Device4',
      validityDays: 30,
      publicKey: rsaKey,
    });
    expect(await certificateText(signed.certificatePem)).toMatch(
      /Key Usage: critical\s+Digital Signature, Key Encipherment\n/,
    );

    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    await expect(
      ca.signMemberCertificate({ callsign: 'Device5', validityDays: 30, publicKey: weak }),
    ).rejects.toThrow(UnsupportedPublicKeyError);

    // TAK Server's channels EKU, for a TAK client that sent its version (docs/tak.md#what-was-tried-and-what-was-not).
    const channels = await ca.signMemberCertificate({
      callsign: 'Device7',
      validityDays: 30,
      publicKey: rsaKey,
      takChannels: true,
    });
    const channelsText = await certificateText(channels.certificatePem);
    expect(channelsText).toMatch(
      /Extended Key Usage: \s+TLS Web Client Authentication, challengePassword\n/,
    );
    expect((await verify(channels.certificatePem, '-purpose', 'sslclient')).output).toContain(
      ': OK',
    );
    expect(await certificateText(signed.certificatePem)).toMatch(
      /Extended Key Usage: \s+TLS Web Client Authentication\n/,
    );

    for (const publicExponent of [3, 17, 0x10003]) {
      const odd = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent }).publicKey;
      await expect(
        ca.signMemberCertificate({ callsign: 'Device6', validityDays: 30, publicKey: odd }),
      ).rejects.toThrow(`public exponent ${publicExponent} is not accepted (65537)`);
    }
  });

  it('never outlive the issuing CA', async () => {
    const long = await ca.issueMemberCertificate({ callsign: 'Long1', validityDays: 36_500 });
    const issuing = new X509Certificate(ca.issuingCertificatePem);
    expect(long.notAfter).toEqual(new Date(issuing.validTo));
  });

  it('reject an empty callsign and a non-positive validity', async () => {
    await expect(ca.issueMemberCertificate({ callsign: '', validityDays: 1 })).rejects.toThrow(
      TypeError,
    );
    await expect(ca.issueMemberCertificate({ callsign: 'X1', validityDays: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('server certificates', () => {
  it('name every DNS name and address, for server and client authentication, 397 days from not-before', async () => {
    const issuedAt = Date.now();
    const server = await ca.issueServerCertificate({
      dnsNames: ['portal.example.org', 'mtls.portal.example.org'],
      ipAddresses: ['127.0.0.1'],
    });
    const text = await certificateText(server.certificatePem);
    expect(server.commonName).toBe('portal.example.org');
    expect(text).toContain('Subject: CN = portal.example.org\n');
    expect(text).toMatch(
      /Subject Alternative Name: \s+DNS:portal\.example\.org, DNS:mtls\.portal\.example\.org, IP Address:127\.0\.0\.1\n/,
    );
    // Both, as TAK Server's own: a TAK Server is a client of its federation peers.
    expect(text).toMatch(
      /Extended Key Usage: \s+TLS Web Server Authentication, TLS Web Client Authentication\n/,
    );
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
    expect(text).toContain('Public-Key: (2048 bit)');
    // Back-dated 12 hours, and 397 days in all (Apple's limit for phones), back-dating included.
    const printed = validityOf(text);
    expect(Math.abs(printed.notBefore - (issuedAt - 12 * 3_600_000))).toBeLessThan(5_000);
    expect(printed.notAfter - printed.notBefore).toBe(397 * DAY_MS);
    expect(server.notAfter.getTime() - server.notBefore.getTime()).toBe(397 * DAY_MS);
    for (const check of [
      ['-verify_hostname', 'mtls.portal.example.org'],
      ['-verify_ip', '127.0.0.1'],
    ]) {
      const result = await verify(server.certificatePem, '-purpose', 'sslserver', ...check);
      expect(result.output).toContain(': OK');
    }
    expect(
      await verify(server.certificatePem, '-verify_hostname', 'other.example.org'),
    ).toMatchObject({ code: 2 });
  });

  it('need at least one name', async () => {
    await expect(ca.issueServerCertificate({ dnsNames: [] })).rejects.toThrow(TypeError);
  });

  it('verify for client authentication too (federation)', async () => {
    const server = await ca.issueServerCertificate({ dnsNames: ['tak.example.org'] });
    expect((await verify(server.certificatePem, '-purpose', 'sslclient')).output).toContain(': OK');
  });

  it('last at most 397 days: a longer one is refused', async () => {
    await expect(
      ca.issueServerCertificate({ dnsNames: ['tak.example.org'], validityDays: 398 }),
    ).rejects.toThrow('a server certificate lasts at most 397 days, not 398');
    const short = await ca.issueServerCertificate({
      dnsNames: ['tak.example.org'],
      validityDays: 30,
    });
    expect(short.notAfter.getTime() - short.notBefore.getTime()).toBe(30 * DAY_MS + 720 * 60_000);
  });
});

describe('the back-dating of leaves', () => {
  it('follows leafBackdateMs (PORTAL_CERT_BACKDATE_MINUTES), 0 included', async () => {
    for (const minutes of [0, 90]) {
      const backdated = await CertificateAuthority.loadOrCreate({
        dir,
        publicBaseUrl: BASE_URL,
        leafBackdateMs: minutes * 60_000,
      });
      const issuedAt = Date.now();
      const member = await backdated.issueMemberCertificate({ callsign: 'Skew1', validityDays: 1 });
      const server = await backdated.issueServerCertificate({ dnsNames: ['tak.example.org'] });
      for (const issued of [member, server]) {
        const { notBefore } = validityOf(await certificateText(issued.certificatePem));
        expect(Math.abs(notBefore - (issuedAt - minutes * 60_000))).toBeLessThan(5_000);
      }
    }
    await expect(
      CertificateAuthority.loadOrCreate({ dir, publicBaseUrl: BASE_URL, leafBackdateMs: -1 }),
    ).rejects.toThrow(RangeError);
  });
});

describe('over TLS', () => {
  it('a member certificate authenticates to a server using a server certificate', async () => {
    const server = await ca.issueServerCertificate({ dnsNames: ['portal.example.org'] });
    const member = await ca.issueMemberCertificate({ callsign: 'Tls1', validityDays: 1 });
    const tlsServer = tls.createServer({
      key: server.privateKeyPem,
      cert: server.certificatePem + ca.issuingCertificatePem,
      ca: [ca.rootCertificatePem],
      requestCert: true,
      rejectUnauthorized: true,
    });
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    try {
      const address = tlsServer.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const accepted = once(tlsServer, 'secureConnection') as Promise<[tls.TLSSocket]>;
      const client = tls.connect({
        host: '127.0.0.1',
        port: address.port,
        servername: 'portal.example.org',
        key: member.privateKeyPem,
        cert: member.certificatePem + ca.issuingCertificatePem,
        ca: [ca.rootCertificatePem],
      });
      await once(client, 'secureConnect');
      const [socket] = await accepted;
      expect(client.authorized).toBe(true);
      expect(socket.authorized).toBe(true);
      const peer = socket.getPeerCertificate();
      expect(peer.subject.CN).toBe('Tls1');
      // The TLS layer's serial form (uppercase hex) normalises to the serial the CA reported.
      expect(normalizeSerial(peer.serialNumber)).toBe(member.serial);
      client.destroy();
      socket.destroy();
    } finally {
      tlsServer.close();
    }
  });
});
