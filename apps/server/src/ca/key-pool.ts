import { createPublicKey, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { rsaModulusLength, type GeneratedKeyPair, type KeyAlgorithm } from './key-pair.js';

/**
 * The worker's whole program, evaluated as a plain CommonJS script (`eval: true`): the same
 * source runs under the test runner, which loads this module from TypeScript, and from the
 * build, with no separate worker file to compile or ship. It uses node:crypto only. On Linux,
 * where the nice value is per thread, the worker first lowers its own thread's scheduling
 * priority, so the operating system runs it only on a core nothing else wants (elsewhere the
 * nice value is the whole process's, so it is left alone). Then it makes one key pair per
 * message and posts the private key back (a KeyObject is cloned across threads; it is never
 * written anywhere).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { generateKeyPairSync } = require('node:crypto');
// Linux only: there the nice value is per thread; elsewhere it would lower the whole process.
if (process.platform === 'linux') {
  try { require('node:os').setPriority(19); } catch {}
}
parentPort.on('message', () => {
  const { privateKey } = generateKeyPairSync(workerData.type, workerData.options);
  parentPort.postMessage(privateKey);
});
`;

/** Key pairs made ahead, each handed out once: a `KeyPool`, or keys made by someone else earlier. */
export interface KeyPairSupply {
  /** A key pair no one else gets; undefined when none of that algorithm is left. */
  take(algorithm: KeyAlgorithm): GeneratedKeyPair | undefined;
}

export interface KeyPoolOptions {
  /** The one algorithm pooled (the configured `PORTAL_KEY_ALGORITHM`); others are not held. */
  algorithm: KeyAlgorithm;
  /** Most key pairs held (`PORTAL_KEY_POOL_SIZE`); at least 1. */
  size: number;
  /** Refilling starts when the pool holds this many or fewer (`PORTAL_KEY_POOL_LOW_WATER`). */
  lowWater: number;
  /** True while a request is minting: the pool then waits before it asks for its next key. */
  busy: () => boolean;
  /** How long the pool waits before looking again while `busy` (default 100 ms). */
  pauseMs?: number;
}

/**
 * Key pairs made ahead in one worker thread, so that a download costs signing and packing, not
 * key generation. Held in memory only; each is handed out once and dropped from the pool. The
 * pool refills at low priority: one key at a time, only while no request is minting, in a thread
 * of the lowest scheduling priority. An empty pool hands out nothing and the caller makes its
 * key itself, as without a pool.
 */
export class KeyPool implements KeyPairSupply {
  private readonly keys: GeneratedKeyPair[] = [];
  private readonly worker: Worker;
  private refilling = false;
  private waitingForKey = false;
  private stopped = false;
  private exited = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly pauseMs: number;

  constructor(private readonly options: KeyPoolOptions) {
    const { size, lowWater } = options;
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`the key pool's size must be a whole number ≥ 1, not ${size}`);
    }
    if (!Number.isInteger(lowWater) || lowWater < 0 || lowWater >= size) {
      throw new RangeError(
        `the key pool's low-water mark must be 0 to ${size - 1}, not ${lowWater}`,
      );
    }
    this.pauseMs = options.pauseMs ?? 100;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: workerArguments(options.algorithm),
    });
    // Never what keeps the process alive: a process that ends without close() is not held.
    this.worker.unref();
    this.worker.on('message', (privateKey: KeyObject) => {
      this.received(privateKey);
    });
    // A worker that fails leaves the pool empty for good: every request makes its own key.
    this.worker.on('error', () => {
      this.stop();
    });
    this.worker.on('exit', () => {
      this.exited = true;
      this.stop();
    });
    this.refill();
  }

  /** How many key pairs the pool holds now. */
  get available(): number {
    return this.keys.length;
  }

  /** Whether the worker thread is still there (false once close() has returned). */
  get running(): boolean {
    return !this.exited;
  }

  /** A key pair made ahead, which no one else gets; undefined when the pool has none of these. */
  take(algorithm: KeyAlgorithm): GeneratedKeyPair | undefined {
    if (algorithm !== this.options.algorithm) return undefined;
    const keyPair = this.keys.shift();
    if (this.keys.length <= this.options.lowWater) this.refill();
    return keyPair;
  }

  /** Stops the worker and drops every key pair held. */
  async close(): Promise<void> {
    this.stop();
    await this.worker.terminate();
    this.exited = true;
  }

  private stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.keys.length = 0;
  }

  private refill(): void {
    if (this.refilling || this.stopped) return;
    this.refilling = true;
    this.askForNext();
  }

  private askForNext(): void {
    this.timer = undefined;
    if (this.stopped || this.keys.length >= this.options.size) {
      this.refilling = false;
      return;
    }
    if (this.options.busy()) {
      this.timer = setTimeout(() => {
        this.askForNext();
      }, this.pauseMs);
      this.timer.unref();
      return;
    }
    this.waitingForKey = true;
    this.worker.postMessage(null);
  }

  private received(privateKey: KeyObject): void {
    if (!this.waitingForKey || this.stopped) return;
    this.waitingForKey = false;
    const publicKeyDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    this.keys.push({ privateKey, publicKeyDer });
    this.askForNext();
  }
}

function workerArguments(algorithm: KeyAlgorithm): { type: string; options: object } {
  return algorithm === 'ecdsa-p256'
    ? { type: 'ec', options: { namedCurve: 'prime256v1' } }
    : {
        type: 'rsa',
        options: { modulusLength: rsaModulusLength(algorithm), publicExponent: 0x10001 },
      };
}
