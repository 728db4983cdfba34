import { createPublicKey } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from './authority.js';
import { CA_FILES } from './ca-files.js';
import { KeyPool, type KeyPoolOptions } from './key-pool.js';
import { makeTempDir, openssl, removeTempDir, runOpenssl } from './openssl-cli.testing.js';
import { loadTestCa } from './test-ca.testing.js';

/** Waits until `condition` holds: the worker makes keys at its own (lowest) priority. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 1_200; tries++) {
    if (condition()) return;
    await sleep(50);
  }
  throw new Error(`gave up waiting until ${what}`);
}

const pools: KeyPool[] = [];

function pool(options: Partial<KeyPoolOptions> = {}): KeyPool {
  const made = new KeyPool({
    algorithm: 'rsa-2048',
    size: 3,
    lowWater: 0,
    busy: () => false,
    ...options,
  });
  pools.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((made) => made.close()));
});

describe('key pool', () => {
  it('hands each key pair out once, then nothing until it has made more', async () => {
    const keys = pool();
    await until(() => keys.available === 3, 'the pool is full');

    const taken = [keys.take('rsa-2048'), keys.take('rsa-2048'), keys.take('rsa-2048')];
    expect(keys.take('rsa-2048')).toBeUndefined();
    const spkis = taken.map((pair) => pair?.publicKeyDer.toString('base64'));
    expect(new Set(spkis).size).toBe(3);
    for (const pair of taken) {
      expect(pair?.privateKey.asymmetricKeyType).toBe('rsa');
      expect(pair?.privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
      // The public key handed out is the private key's own.
      expect(
        pair && createPublicKey(pair.privateKey).export({ type: 'spki', format: 'der' }),
      ).toEqual(pair?.publicKeyDer);
    }
  });

  it('holds only the configured algorithm: another is made on the request', async () => {
    const keys = pool({ size: 1 });
    await until(() => keys.available === 1, 'the pool is full');
    expect(keys.take('ecdsa-p256')).toBeUndefined();
    expect(keys.available).toBe(1);
  });

  it('refills up to its size once it falls to the low-water mark, and never past it', async () => {
    const keys = pool({ size: 4, lowWater: 2 });
    await until(() => keys.available === 4, 'the pool is full');
    keys.take('rsa-2048');
    // 3 left, above the mark: no refill.
    await sleep(1_000);
    expect(keys.available).toBe(3);
    keys.take('rsa-2048');
    await until(() => keys.available === 4, 'the pool refilled');
    await sleep(500);
    expect(keys.available).toBe(4);
  });

  it('makes no key while requests are minting', async () => {
    let busy = true;
    const keys = pool({ size: 1, busy: () => busy, pauseMs: 20 });
    await sleep(1_500);
    expect(keys.available).toBe(0);
    busy = false;
    await until(() => keys.available === 1, 'the pool filled once idle');
  });

  it('close() stops the worker and drops the keys held', async () => {
    const keys = pool({ size: 2 });
    await until(() => keys.available === 2, 'the pool is full');
    expect(keys.running).toBe(true);

    await keys.close();
    expect(keys.running).toBe(false);
    expect(keys.available).toBe(0);
    expect(keys.take('rsa-2048')).toBeUndefined();
  });

  it('refuses a size or low-water mark that cannot work', () => {
    const busy = () => false;
    expect(() => new KeyPool({ algorithm: 'rsa-2048', size: 0, lowWater: 0, busy })).toThrow(
      RangeError,
    );
    expect(() => new KeyPool({ algorithm: 'rsa-2048', size: 4, lowWater: 4, busy })).toThrow(
      RangeError,
    );
  });
});

describe('a certificate for a key pair from the pool', () => {
  let dir: string;
  let ca: CertificateAuthority;

  beforeAll(async () => {
    dir = await makeTempDir();
    ca = await loadTestCa({
      dir: path.join(dir, 'ca'),
      publicBaseUrl: 'http://portal.example.org',
    });
  });

  afterAll(async () => {
    await removeTempDir(dir);
  });

  it('is valid for OpenSSL and carries that key pair’s public key', async () => {
    const keys = pool({ size: 1 });
    await until(() => keys.available === 1, 'the pool is full');
    const keyPair = keys.take('rsa-2048');
    expect(keyPair).toBeDefined();

    const issued = await ca.issueMemberCertificate({
      callsign: 'Pooled1',
      validityDays: 30,
      keyAlgorithm: 'rsa-2048',
      ...(keyPair === undefined ? {} : { keyPair }),
    });

    const leaf = path.join(dir, 'leaf.pem');
    const key = path.join(dir, 'leaf.key');
    await fs.writeFile(leaf, issued.certificatePem);
    await fs.writeFile(key, issued.privateKeyPem);
    const verified = await runOpenssl([
      'verify',
      '-CAfile',
      path.join(dir, 'ca', CA_FILES.rootCertificate),
      '-untrusted',
      path.join(dir, 'ca', CA_FILES.issuingCertificate),
      leaf,
    ]);
    expect(verified.stdout + verified.stderr).toContain(': OK');
    expect(verified.code).toBe(0);
    const certificateKey = await openssl(['x509', '-in', leaf, '-noout', '-pubkey']);
    expect(certificateKey).toBe(await openssl(['pkey', '-in', key, '-pubout']));
    const pooledKey = createPublicKey(keyPair?.privateKey ?? '').export({
      type: 'spki',
      format: 'pem',
    });
    expect(certificateKey).toBe(pooledKey);
  });

  it('is refused when the key pair is not of the algorithm asked for', async () => {
    const keys = pool({ algorithm: 'ecdsa-p256', size: 1 });
    await until(() => keys.available === 1, 'the pool is full');
    const keyPair = keys.take('ecdsa-p256');
    await expect(
      ca.issueMemberCertificate({
        callsign: 'Pooled2',
        validityDays: 30,
        keyAlgorithm: 'rsa-2048',
        ...(keyPair === undefined ? {} : { keyPair }),
      }),
    ).rejects.toThrow(/not a rsa-2048 key/);
  });
});
