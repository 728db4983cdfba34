import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keytoolList,
  makeTempDir,
  removeTempDir,
  runOpenssl,
  selfSignedCertificate,
} from './openssl-cli.testing.js';
import { buildTrustStorePkcs12 } from './trust-store.js';

let tmp: string;
let rootPem: string;
let intermediatePem: string;
let storeCount = 0;

function pemBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}

async function writeStore(certificatesPem: string[], password = 'public'): Promise<string> {
  storeCount += 1;
  const file = path.join(tmp, `store-${storeCount}.p12`);
  await fs.writeFile(
    file,
    await buildTrustStorePkcs12({ certificatesPem, password, friendlyNamePrefix: 'portal-ca' }),
  );
  return file;
}

beforeAll(async () => {
  tmp = await makeTempDir();
  const make = async (name: string) => fs.readFile(await selfSignedCertificate(tmp, name), 'utf8');
  [intermediatePem, rootPem] = await Promise.all([make('Test Issuing'), make('Test Root')]);
});

afterAll(() => removeTempDir(tmp));

describe('buildTrustStorePkcs12', () => {
  it('holds the certificates only, 3DES-encrypted with a SHA-1 MAC, named in order', async () => {
    const file = await writeStore([intermediatePem, rootPem]);
    const result = await runOpenssl([
      'pkcs12',
      '-info',
      '-in',
      file,
      '-passin',
      'pass:public',
      '-nokeys',
    ]);
    expect(result.code).toBe(0);
    const output = result.stderr + result.stdout;
    expect(output).toContain('MAC: sha1, Iteration 2048');
    expect(output).toContain('PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC');
    // Only openssl's structure lines: the base64 of the certificates can contain any letters.
    const structure = output
      .split('\n')
      .filter((line) => /^(MAC:|PKCS7 |Shrouded Keybag|Certificate bag|Key bag)/.test(line))
      .join('\n');
    expect(structure).not.toMatch(/Shrouded Keybag|PKCS7 Data|RC2|PBES2/);
    const entries = [...result.stdout.matchAll(/friendlyName: (.*)\n(?:.*\n)*?subject=(.*)\n/g)];
    expect(entries.map((match) => [match[1], match[2]])).toEqual([
      ['portal-ca-1', 'CN = Test Issuing'],
      ['portal-ca-2', 'CN = Test Root'],
    ]);
    const certificates = [
      ...result.stdout.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g),
    ];
    expect(certificates.map((match) => pemBody(match[0]))).toEqual([
      pemBody(intermediatePem),
      pemBody(rootPem),
    ]);
  });

  it('accepts certificates concatenated in one PEM text', async () => {
    const file = await writeStore([intermediatePem + rootPem]);
    const result = await runOpenssl(['pkcs12', '-in', file, '-passin', 'pass:public', '-nokeys']);
    expect(result.stdout.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it('rejects a wrong password', async () => {
    const file = await writeStore([rootPem], 'public');
    const result = await runOpenssl([
      'pkcs12',
      '-info',
      '-in',
      file,
      '-passin',
      'pass:Public',
      '-noout',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Mac verify error');
  });

  it('needs at least one certificate', () => {
    expect(() =>
      buildTrustStorePkcs12({ certificatesPem: [], password: 'public', friendlyNamePrefix: 'x' }),
    ).toThrow(TypeError);
  });
});

const keytool = await promisify(execFile)('keytool', ['-help']).then(
  () => true,
  () => false,
);

describe.skipIf(!keytool)("Java's PKCS12 keystore (keytool)", () => {
  it('lists every certificate as a trusted entry', async () => {
    const file = await writeStore([intermediatePem, rootPem]);
    const stdout = await keytoolList(file, 'public');
    expect(stdout).toContain('Your keystore contains 2 entries');
    expect(stdout).toMatch(/portal-ca-1, .*, trustedCertEntry/);
    expect(stdout).toMatch(/portal-ca-2, .*, trustedCertEntry/);
  });
});
