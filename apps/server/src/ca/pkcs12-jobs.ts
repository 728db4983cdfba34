import { signLeaf, type LeafOrder, type SignedLeaf } from './leaf.js';
import { buildPkcs12, type KeystoreOptions } from './pkcs12.js';
import { buildTrustStorePkcs12, type TrustStoreOptions } from './trust-store.js';

/**
 * Where PKCS#12 files are packed: the key derivations (PKCS#12 appendix B or PBKDF2, 2,048
 * rounds, several per file) and the encryption. On this thread (`PACK_ON_THIS_THREAD`, the CLI's
 * and most tests'), or in worker threads (`Pkcs12Workers`, the service's).
 */
export interface Pkcs12Packing {
  /** A member's keystore (`buildPkcs12`). */
  keystore(options: KeystoreOptions): Promise<Buffer>;
  /** A truststore of certificates only (`buildTrustStorePkcs12`). */
  trustStore(options: TrustStoreOptions): Promise<Buffer>;
}

/**
 * One job as it crosses to a packing worker: a packing (plain strings) or a leaf certificate to
 * build and sign (`LeafOrder`: plain values and the CA's `CryptoKey`, which `postMessage` clones).
 */
export type Pkcs12Job =
  | { readonly kind: 'keystore'; readonly options: KeystoreOptions }
  | { readonly kind: 'trustStore'; readonly options: TrustStoreOptions }
  | { readonly kind: 'leaf'; readonly order: LeafOrder };

/** Runs one job here: what a packing worker (workers/minting.worker.ts) runs for each job. */
export function runPkcs12Job(job: Pkcs12Job): Promise<Buffer | SignedLeaf> {
  switch (job.kind) {
    case 'keystore':
      return buildPkcs12(job.options);
    case 'trustStore':
      return buildTrustStorePkcs12(job.options);
    case 'leaf':
      return signLeaf(job.order);
  }
}

/** Packing on the calling thread: the CLI, which packs one file or none, and tests. */
export const PACK_ON_THIS_THREAD: Pkcs12Packing = {
  keystore: buildPkcs12,
  trustStore: buildTrustStorePkcs12,
};
