import { execFile } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
import type { KeystoreOptions, Pkcs12Format } from './pkcs12.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from './pkcs12-jobs.js';
import { Pkcs12Workers } from './pkcs12-workers.js';

let tmp: string;
let ca: CertificateAuthority;
const members: Partial<Record<'rsa-2048' | 'ecdsa-p256', IssuedCertificate>> = {};
const write = tempFileWriter(() => tmp);
const workers = new Pkcs12Workers(2);

/** Every check below holds for a keystore packed here and for one packed in a worker thread. */
const packings: [string, Pkcs12Packing][] = [
  ['on this thread', PACK_ON_THIS_THREAD],
  ['in a worker thread', workers],
];

/** A member's keystore as the service packs it: password and friendly name the callsign. */
function keystoreOf(issued: IssuedCertificate, format: Pkcs12Format): KeystoreOptions {
  return {
    privateKeyPem: issued.privateKeyPem,
    certificatePem: issued.certificatePem,
    chainPem: issued.chainPem,
    password: issued.commonName,
    friendlyName: issued.commonName,
    format,
  };
}

async function keystore(
  packing: Pkcs12Packing,
  issued: IssuedCertificate,
  format: Pkcs12Format,
): Promise<string> {
  return write(await packing.keystore(keystoreOf(issued, format)), '.p12');
}

/** The subjects of the certificates `openssl pkcs12 -info` lists, in order. */
function subjectsIn(bags: string): (string | undefined)[] {
  return [...bags.matchAll(/^subject=(.*)$/gm)].map((match) => match[1]);
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

afterAll(async () => {
  await workers.close();
  await removeTempDir(tmp);
});

const keytool = await promisify(execFile)('keytool', ['-help']).then(
  () => true,
  () => false,
);

describe.each(packings)('packed %s', (_where, packing) => {
  describe.each(['rsa-2048', 'ecdsa-p256'] as const)(
    'buildPkcs12 with an %s key',
    (keyAlgorithm) => {
      const member = () => members[keyAlgorithm]!;

      it('legacy: key and certificates under 3DES, MAC SHA-1', async () => {
        const file = await keystore(packing, member(), 'legacy');
        const { code, output } = await info(file, member().commonName, '-nokeys', '-noout');
        expect(code).toBe(0);
        expect(output).toContain('MAC: sha1, Iteration 2048');
        expect(output).toContain('PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC');
        expect(output).toContain('Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC');
        expect(output).not.toMatch(/RC2|PBES2|AES/);
      });

      it('modern: key and certificates under PBES2/AES-256-CBC, MAC SHA-256', async () => {
        const file = await keystore(packing, member(), 'modern');
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
          const file = await keystore(packing, issued, format);
          const { code, bags } = await info(file, issued.commonName, '-nodes');
          expect(code).toBe(0);
          expect(subjectsIn(bags)).toEqual([
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
        const file = await keystore(packing, issued, format);
        const { code, output } = await info(file, issued.commonName.toLowerCase(), '-noout');
        expect(code).not.toBe(0);
        expect(output).toContain('Mac verify error');
      });
    },
  );

  describe('buildPkcs12 input checks', () => {
    it('refuses a key that does not belong to the certificate', async () => {
      const rsa = members['rsa-2048']!;
      const ec = members['ecdsa-p256']!;
      await expect(
        packing.keystore({
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
        packing.keystore({
          ...rsa,
          chainPem: ['nothing'],
          password: 'x',
          friendlyName: 'x',
          format: 'modern',
        }),
      ).rejects.toThrow(/no PEM certificate/);
    });
  });

  describe.skipIf(!keytool)("Java's PKCS12 keystore (keytool), as TAK Server reads it", () => {
    it.each(['legacy', 'modern'] as const)(
      '%s: one private key entry with a chain of 3',
      async (format) => {
        const issued = members['rsa-2048']!;
        const file = await keystore(packing, issued, format);
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
});

/**
 * Counts the key derivations made on this (the main) thread: both formats derive every key
 * through these two (node-forge's PKCS#12 KDF for legacy, WebCrypto's PBKDF2 for modern).
 */
function mainThreadDerivations(): () => number {
  const pkcs12Kdf = vi.spyOn(forge.pkcs12, 'generateKey');
  const pbkdf2 = vi.spyOn(webcrypto.subtle, 'deriveBits');
  return () => pkcs12Kdf.mock.calls.length + pbkdf2.mock.calls.length;
}

describe('Pkcs12Workers: packing in worker threads', () => {
  const opened: Pkcs12Workers[] = [];
  const pool = (size: number) => {
    const made = new Pkcs12Workers(size);
    opened.push(made);
    return made;
  };
  const rsa = () => members['rsa-2048']!;
  const ec = () => members['ecdsa-p256']!;

  async function opened12(pfx: Buffer, password: string) {
    return info(await write(pfx, '.p12'), password, '-nodes');
  }

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await Promise.all(opened.map((made) => made.close()));
  });

  it('derives no key on the main thread: keystores and truststores are packed in a worker', async () => {
    const workers = pool(1);
    const derivations = mainThreadDerivations();
    const legacy = await workers.keystore(keystoreOf(rsa(), 'legacy'));
    const modern = await workers.keystore(keystoreOf(rsa(), 'modern'));
    const trust = await workers.trustStore({
      certificatesPem: rsa().chainPem,
      password: 'atakatak',
      friendlyNamePrefix: 'ops',
    });
    expect(derivations()).toBe(0);
    for (const pfx of [legacy, modern]) {
      expect(subjectsIn((await opened12(pfx, 'ALPHA1')).bags)).toEqual([
        'CN = ALPHA1',
        'O = portal.example.org, CN = Callsign Portal Issuing CA',
        'O = portal.example.org, CN = Callsign Portal Root CA',
      ]);
    }
    const truststore = await opened12(trust, 'atakatak');
    expect(truststore.code).toBe(0);
    expect(truststore.output).toContain('friendlyName: ops-1');
    expect(subjectsIn(truststore.bags)).toHaveLength(2);

    // The same counter sees the derivations of packing on this thread: it tells the two apart.
    await PACK_ON_THIS_THREAD.keystore(keystoreOf(rsa(), 'legacy'));
    await PACK_ON_THIS_THREAD.keystore(keystoreOf(rsa(), 'modern'));
    expect(derivations()).toBeGreaterThan(0);
  });

  it('packs more jobs than it has threads, each answered with its own file', async () => {
    const workers = pool(2);
    const jobs = [rsa(), ec(), ec(), rsa()].map((issued, index) =>
      keystoreOf(issued, index % 2 === 0 ? 'legacy' : 'modern'),
    );
    const packed = await Promise.all(jobs.map((job) => workers.keystore(job)));
    const leaves = await Promise.all(
      packed.map(async (pfx, index) => {
        const { bags } = await opened12(pfx, jobs[index]!.password);
        return subjectsIn(bags)[0];
      }),
    );
    expect(leaves).toEqual(['CN = ALPHA1', 'CN = Bravo2', 'CN = Bravo2', 'CN = ALPHA1']);
    expect(workers.threads).toHaveLength(2);
  });

  it('answers bad input with the error the packing threw, and goes on packing', async () => {
    const workers = pool(1);
    const mismatched = { ...keystoreOf(rsa(), 'legacy'), privateKeyPem: ec().privateKeyPem };
    const refused = workers.keystore(mismatched);
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow('the private key does not belong to the certificate');
    await expect(
      workers.trustStore({ certificatesPem: ['nothing'], password: 'x', friendlyNamePrefix: 'x' }),
    ).rejects.toThrow(new TypeError('a truststore needs at least one certificate'));
    const [thread] = workers.threads;
    const good = await workers.keystore(keystoreOf(rsa(), 'modern'));
    expect((await opened12(good, 'ALPHA1')).code).toBe(0);
    expect(workers.threads).toEqual([thread]);
  });

  it('a worker that dies fails its job with a clear error and is replaced by a new one', async () => {
    const workers = pool(1);
    const [first] = workers.threads;
    const inFlight = workers.keystore(keystoreOf(rsa(), 'legacy'));
    await first!.terminate();
    await expect(inFlight).rejects.toThrow(
      /^the PKCS#12 packing worker stopped \(exit code \d+\) before it answered$/,
    );
    expect(workers.threads).toEqual([]);
    const next = await workers.keystore(keystoreOf(rsa(), 'legacy'));
    expect((await opened12(next, 'ALPHA1')).code).toBe(0);
    const [second] = workers.threads;
    expect(second!.threadId).not.toBe(first!.threadId);
  });

  it('close() ends every thread and refuses the jobs still waiting and any after it', async () => {
    const workers = pool(1);
    const exits = workers.threads.map(
      (thread) => new Promise((ended) => thread.once('exit', ended)),
    );
    const refusals = [
      workers.keystore(keystoreOf(rsa(), 'legacy')),
      workers.keystore(keystoreOf(rsa(), 'modern')),
    ].map((job) => expect(job).rejects.toThrow('the PKCS#12 packing workers are closed'));
    await workers.close();
    await Promise.all(exits);
    await Promise.all(refusals);
    await expect(workers.keystore(keystoreOf(rsa(), 'legacy'))).rejects.toThrow(
      'the PKCS#12 packing workers are closed',
    );
  });

  it('refuses a size that cannot work', () => {
    expect(() => new Pkcs12Workers(0)).toThrow(RangeError);
    expect(() => new Pkcs12Workers(1.5)).toThrow(RangeError);
  });
});
