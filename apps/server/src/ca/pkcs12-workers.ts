import type { LeafOrder, LeafSigning, SignedLeaf } from './leaf.js';
import type { KeystoreOptions } from './pkcs12.js';
import type { Pkcs12Job, Pkcs12Packing } from './pkcs12-jobs.js';
import type { TrustStoreOptions } from './trust-store.js';
import { sameKind, workerFile, WorkerPool } from './worker-pool.js';
import type { ThrownError } from './workers/serve.js';

/**
 * PKCS#12 packing in `size` worker threads (the service's: one per minting slot,
 * workers/minting.worker.ts), so that the key derivations and encryption of a burst of keystores
 * never hold the event loop; members' certificates are built and signed there too (`LeafSigning`,
 * for a file-key CA). The threads are a `WorkerPool`: jobs wait in order for a free thread, a
 * thread that dies fails its job and is replaced, `close()` ends them all. A job's error comes
 * back as the same kind (a TypeError stays a TypeError: the input was bad).
 */
export class Pkcs12Workers implements Pkcs12Packing, LeafSigning {
  private readonly pool: WorkerPool<Pkcs12Job, Uint8Array | SignedLeaf>;

  constructor(readonly size: number) {
    this.pool = new WorkerPool({
      file: workerFile('./workers/minting.worker', import.meta.url),
      size,
      name: 'PKCS#12 packing',
      jobError,
    });
  }

  async keystore(options: KeystoreOptions): Promise<Buffer> {
    return bufferOf(await this.pool.run({ kind: 'keystore', options }));
  }

  async trustStore(options: TrustStoreOptions): Promise<Buffer> {
    return bufferOf(await this.pool.run({ kind: 'trustStore', options }));
  }

  async signLeaf(order: LeafOrder): Promise<SignedLeaf> {
    return (await this.pool.run({ kind: 'leaf', order })) as SignedLeaf;
  }

  /** The worker threads running now (a dead one is replaced only when a job needs it). */
  get threads() {
    return this.pool.threads;
  }

  /** Ends every thread; jobs in flight or waiting are rejected. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

function bufferOf(bytes: Uint8Array | SignedLeaf): Buffer {
  const { buffer, byteOffset, byteLength } = bytes as Uint8Array;
  return Buffer.from(buffer, byteOffset, byteLength);
}

/** A leaf's error names the certificate it was for; a packing's says it was one. */
function jobError(job: Pkcs12Job, thrown: ThrownError): Error {
  if (job.kind === 'leaf') {
    const what = `signing the certificate for ${JSON.stringify(job.order.commonName)} failed`;
    return sameKind(thrown, `${what}: ${thrown.message}`);
  }
  if (thrown.name === 'TypeError' || thrown.name === 'RangeError') {
    return sameKind(thrown, thrown.message);
  }
  return new Error(`packing a PKCS#12 file failed: ${thrown.message}`);
}
