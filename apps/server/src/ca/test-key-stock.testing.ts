import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { createKeyPair, type GeneratedKeyPair, type KeyAlgorithm } from './key-pair.js';
import type { KeyPairSupply } from './key-pool.js';
import { decodePemBlocks } from './pem.js';

// Test support: an RSA-2048 key pair costs 100–300 ms, and the inject tier's portals issue a
// hundred of them. A stock of member key pairs is made once per clone and kept in
// node_modules/.cache (test/global-setup.ts), and every test portal takes from it as the service
// takes from its key pool: each key pair once per portal, then made on request. Portals share
// the stock, never a key within one. These keys sign nothing but test certificates.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The stock of member key pairs (a PEM file); absent without the global set-up. */
    testKeyStock?: string;
  }
}

/** The algorithm stocked: the members' default (`PORTAL_KEY_ALGORITHM`); EC keys cost ~1 ms. */
const STOCKED: KeyAlgorithm = 'rsa-2048';

/** More than the busiest portal of the fast tier takes (an admin harness and its race rounds). */
const STOCK_SIZE = 48;

/**
 * The stock's file in `cacheDir`, made there (0600) unless an earlier run left a whole one:
 * written aside and renamed, so a run beside this one reads the old file or the new, never half.
 */
export async function makeTestKeyStock(cacheDir: string): Promise<string> {
  const file = path.join(cacheDir, `member-key-stock-${STOCKED}.pem`);
  const kept = await readStock(file).catch(() => []);
  if (kept.length >= STOCK_SIZE) return file;
  const pairs = await Promise.all(Array.from({ length: STOCK_SIZE }, () => createKeyPair(STOCKED)));
  const pem = pairs.map(({ privateKey }) => privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const aside = `${file}.${process.pid}`;
  await writeFile(aside, pem.join(''), { mode: 0o600 });
  await rename(aside, file);
  return file;
}

let stock: Promise<GeneratedKeyPair[]> | undefined;

async function readStock(file: string): Promise<GeneratedKeyPair[]> {
  return decodePemBlocks(await readFile(file, 'utf8'), 'PRIVATE KEY').map((der) => {
    const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    const publicKeyDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    return { privateKey, publicKeyDer };
  });
}

/**
 * A supply for one test portal from the run's stock: each key pair at most once, in order.
 * Undefined when the run has no stock (a test project without the global set-up).
 */
export async function testKeySupply(): Promise<KeyPairSupply | undefined> {
  const file = inject('testKeyStock');
  if (file === undefined) return undefined;
  stock ??= readStock(file);
  const pairs = [...(await stock)];
  return { take: (algorithm) => (algorithm === STOCKED ? pairs.shift() : undefined) };
}
