import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, type IssuedCertificate } from './authority.js';
import { loadTestCa } from './test-ca.testing.js';
import {
  makeTempDir,
  publicKeyOfCertificate,
  publicKeyOfPrivateKey,
  removeTempDir,
  runOpenssl,
  tempFileWriter,
} from './openssl-cli.testing.js';
import { buildPkcs12, type Pkcs12Format } from './pkcs12.js';

let tmp: string;
let ca: CertificateAuthority;
const members: Partial<Record<'rsa-2048' | 'ecdsa-p256', IssuedCertificate>> = {};
const write = tempFileWriter(() => tmp);

async function keystore(issued: IssuedCertificate, format: Pkcs12Format): Promise<string> {
  const pfx = await buildPkcs12({
    privateKeyPem: issued.privateKeyPem,
    certificatePem: issued.certificatePem,
    chainPem: issued.chainPem,
    password: issued.commonName,
    friendlyName: issued.commonName,
    format,
  });
  return write(pfx, '.p12');
}

/** `openssl pkcs12 -info`: the algorithm lines (stderr) and the bags (stdout). */
async function info(file: string, password: string, ...options: string[]) {
  const result = await runOpenssl([
    'pkcs12',
    '-info',
    '-in',
    file,
    '-passin',
    `pass:${password}`,
    ...options,
  ]);
  return { code: result.code, output: result.stderr + result.stdout, bags: result.stdout };
}

beforeAll(async () => {
  tmp = await makeTempDir();
  ca = await loadTestCa({
    dir: path.join(tmp, 'ca'),
    publicBaseUrl: 'https://portal.example.org',
  });
  members['rsa-2048'] = await ca.issueMemberCertificate({ callsign: 'ALPHA1', validityDays: 30 });
  members['ecdsa-p256'] = await ca.issueMemberCertificate({
    callsign: 'Bravo2',
    validityDays: 30,
    keyAlgorithm: 'ecdsa-p256',
  });
});

afterAll(() => removeTempDir(tmp));

describe.each(['rsa-2048', 'ecdsa-p256'] as const)('buildPkcs12 with an %s key', (keyAlgorithm) => {
  const member = () => members[keyAlgorithm]!;

  it('legacy: key and certificates under 3DES, MAC SHA-1', async () => {
    const file = await keystore(member(), 'legacy');
    const { code, output } = await info(file, member().commonName, '-nokeys', '-noout');
    expect(code).toBe(0);
    expect(output).toContain('MAC: sha1, Iteration 2048');
    expect(output).toContain('PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC');
    expect(output).toContain('Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC');
    expect(output).not.toMatch(/RC2|PBES2|AES/);
  });

  it('modern: key and certificates under PBES2/AES-256-CBC, MAC SHA-256', async () => {
    const file = await keystore(member(), 'modern');
    const { code, output } = await info(file, member().commonName, '-nokeys', '-noout');
    expect(code).toBe(0);
    expect(output).toContain('MAC: sha256');
    expect(output).toContain(
      'PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256',
    );
    expect(output).toContain(
      'Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256',
    );
    expect(output).not.toMatch(/TripleDES|RC2/);
  });

  it.each(['legacy', 'modern'] as const)(
    '%s: holds the key, the leaf and the chain, named after the callsign',
    async (format) => {
      const issued = member();
      const file = await keystore(issued, format);
      const { code, bags } = await info(file, issued.commonName, '-nodes');
      expect(code).toBe(0);
      const subjects = [...bags.matchAll(/^subject=(.*)$/gm)].map((match) => match[1]);
      expect(subjects).toEqual([
        `CN = ${issued.commonName}`,
        'O = portal.example.org, CN = Callsign Portal Issuing CA',
        'O = portal.example.org, CN = Callsign Portal Root CA',
      ]);
      // The key bag and the leaf bag carry the same friendlyName and localKeyID.
      const attributeBlocks = [
        ...bags.matchAll(/Bag Attributes\n\s+friendlyName: (.*)\n\s+localKeyID: (.*)\n/g),
      ];
      expect(attributeBlocks).toHaveLength(2);
      expect(attributeBlocks.map((match) => match[1])).toEqual([
        issued.commonName,
        issued.commonName,
      ]);
      expect(attributeBlocks[0]![2]).toBe(attributeBlocks[1]![2]);

      const keys = await runOpenssl([
        'pkcs12',
        '-in',
        file,
        '-passin',
        `pass:${issued.commonName}`,
        '-nocerts',
        '-nodes',
      ]);
      expect(await publicKeyOfPrivateKey(keys.stdout)).toBe(
        await publicKeyOfCertificate(issued.certificatePem),
      );
    },
  );

  it.each(['legacy', 'modern'] as const)('%s: a wrong password fails', async (format) => {
    const issued = member();
    const file = await keystore(issued, format);
    const { code, output } = await info(file, issued.commonName.toLowerCase(), '-noout');
    expect(code).not.toBe(0);
    expect(output).toContain('Mac verify error');
  });
});

describe('buildPkcs12 input checks', () => {
  it('refuses a key that does not belong to the certificate', async () => {
    const rsa = members['rsa-2048']!;
    const ec = members['ecdsa-p256']!;
    await expect(
      buildPkcs12({
        privateKeyPem: ec.privateKeyPem,
        certificatePem: rsa.certificatePem,
        chainPem: rsa.chainPem,
        password: 'x',
        friendlyName: 'x',
        format: 'legacy',
      }),
    ).rejects.toThrow(/does not belong/);
  });

  it('refuses a chain entry that holds no certificate', async () => {
    const rsa = members['rsa-2048']!;
    await expect(
      buildPkcs12({
        ...rsa,
        chainPem: ['nothing'],
        password: 'x',
        friendlyName: 'x',
        format: 'modern',
      }),
    ).rejects.toThrow(/no PEM certificate/);
  });
});

const keytool = await promisify(execFile)('keytool', ['-help']).then(
  () => true,
  () => false,
);

describe.skipIf(!keytool)("Java's PKCS12 keystore (keytool), as TAK Server reads it", () => {
  it.each(['legacy', 'modern'] as const)(
    '%s: one private key entry with a chain of 3',
    async (format) => {
      const issued = members['rsa-2048']!;
      const file = await keystore(issued, format);
      const { stdout } = await promisify(execFile)('keytool', [
        '-list',
        '-v',
        '-storetype',
        'PKCS12',
        '-keystore',
        file,
        '-storepass',
        issued.commonName,
      ]);
      expect(stdout).toContain('Your keystore contains 1 entry');
      expect(stdout).toContain('Entry type: PrivateKeyEntry');
      expect(stdout).toContain('Certificate chain length: 3');
    },
  );
});
