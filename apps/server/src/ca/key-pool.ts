import { createPublicKey, type KeyObject } from 'node:crypto';
import { rsaModulusLength, type GeneratedKeyPair, type KeyAlgorithm } from './key-pair.js';
import { workerFile, WorkerPool } from './worker-pool.js';

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

/** One key pair to make, as `generateKeyPairSync` takes it (workers/key-pair.worker.ts). */
export type KeyPairJob =
  | { readonly type: 'ec'; readonly options: { namedCurve: string } }
  | { readonly type: 'rsa'; readonly options: { modulusLength: number; publicExponent: number } };

/**
 * Key pairs made ahead in one worker thread (workers/key-pair.worker.ts), so that a download
 * costs signing and packing, not key generation. Held in memory only; each is handed out once
 * and dropped from the pool. The pool refills at low priority: one key at a time, only while no
 * request is minting, in a thread of the lowest scheduling priority. An empty pool hands out
 * nothing and the caller makes its key itself, as without a pool. A key the thread fails to make
 * leaves the pool empty for good: every request then makes its own key.
 */
export class KeyPool implements KeyPairSupply {
  private readonly keys: GeneratedKeyPair[] = [];
  private readonly worker: WorkerPool<KeyPairJob, KeyObject>;
  private readonly job: KeyPairJob;
  private refilling = false;
  private waitingForKey = false;
  private stopped = false;
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
    this.job = keyPairJob(options.algorithm);
    this.worker = new WorkerPool({
      file: workerFile('./workers/key-pair.worker', import.meta.url),
      size: 1,
      name: 'key pool',
      // Never what keeps the process alive: a process that ends without close() is not held.
      holdsProcess: false,
    });
    this.refill();
  }

  /** How many key pairs the pool holds now. */
  get available(): number {
    return this.keys.length;
  }

  /** Whether the worker thread is still there (false once close() has returned). */
  get running(): boolean {
    return this.worker.threads.length > 0;
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
    await this.worker.close();
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
    this.worker.run(this.job).then(
      (privateKey) => {
        this.received(privateKey);
      },
      () => {
        this.stop();
      },
    );
  }

  private received(privateKey: KeyObject): void {
    if (!this.waitingForKey || this.stopped) return;
    this.waitingForKey = false;
    const publicKeyDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    this.keys.push({ privateKey, publicKeyDer });
    this.askForNext();
  }
}

function keyPairJob(algorithm: KeyAlgorithm): KeyPairJob {
  return algorithm === 'ecdsa-p256'
    ? { type: 'ec', options: { namedCurve: 'prime256v1' } }
    : {
        type: 'rsa',
        options: { modulusLength: rsaModulusLength(algorithm), publicExponent: 0x10001 },
      };
}
