import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The CA directory holds these four PEM files (a scale-out deployment mounts them as secrets;
 * the portal's JWT signing key, jwt-es256-key.pem, is kept beside them):
 *
 *   root-ca.pem          root CA certificate (20 years; signs only the issuing CA)
 *   root-ca-key.pem      root CA private key, PKCS#8, mode 0600 (encrypted with a passphrase if set)
 *   issuing-ca.pem       issuing CA certificate (5 years; signs members, servers, CRLs, OCSP)
 *   issuing-ca-key.pem   issuing CA private key, PKCS#8, mode 0600 (encrypted likewise)
 *
 * An adopted CA (`ca adopt`, adopt.ts) is kept in the same four files: root-ca.pem is then the
 * adopted CA (a root, or an intermediate of another root) with its key, and issuing-ca.pem either
 * a CA the portal made under it or the adopted CA itself (it issues directly). Above an adopted
 * intermediate, one more file holds the certificates up to its self-signed root:
 *
 *   ca-chain.pem         the adopted CA's issuers, nearest first, the self-signed root last
 *
 * The directory itself is mode 0700. Member keys are never written here or anywhere else. The
 * delegated OCSP signer is kept here too (ocsp-signer.ts), outside this set: it is re-made when
 * missing, so a backup need not hold it.
 */
export const CA_FILES = {
  rootCertificate: 'root-ca.pem',
  rootKey: 'root-ca-key.pem',
  issuingCertificate: 'issuing-ca.pem',
  issuingKey: 'issuing-ca-key.pem',
} as const;

/** Optional beside the four: the issuers above an adopted intermediate (PEM, nearest first). */
export const CA_CHAIN_FILE = 'ca-chain.pem';

export interface CaMaterial {
  readonly rootCertificate: string;
  readonly rootKey: string;
  readonly issuingCertificate: string;
  readonly issuingKey: string;
  /** The certificates above `rootCertificate` when that is not self-signed (CA_CHAIN_FILE). */
  readonly chain?: string;
}

type CaFile = keyof typeof CA_FILES;

// Keys first and the issuing certificate last: the order files appear in while being committed.
const COMMIT_ORDER: readonly CaFile[] = [
  'rootKey',
  'rootCertificate',
  'issuingKey',
  'issuingCertificate',
];
const STAGING_PREFIX = '.staging-';

export class CaDirectoryError extends Error {
  override readonly name = 'CaDirectoryError';
}

export function caFilePath(dir: string, file: CaFile): string {
  return path.join(dir, CA_FILES[file]);
}

/** The CA files, or undefined when none exists yet. A partial set is an error, never "none". */
export async function readCaFiles(dir: string): Promise<CaMaterial | undefined> {
  const entries = await Promise.all(
    COMMIT_ORDER.map(async (file) => [file, await readIfExists(caFilePath(dir, file))] as const),
  );
  const present = entries.filter(([, text]) => text !== undefined).map(([file]) => CA_FILES[file]);
  if (present.length === 0) return undefined;
  if (present.length < entries.length) {
    const missing = entries
      .filter(([, text]) => text === undefined)
      .map(([file]) => CA_FILES[file]);
    throw new CaDirectoryError(
      `${dir} holds a partial certificate authority (present: ${present.join(', ')}; missing: ` +
        `${missing.join(', ')}). Restore the missing files from a backup. Only if no certificate ` +
        'from this CA is in use, delete the files so that a new CA is created.',
    );
  }
  const chain = await readIfExists(path.join(dir, CA_CHAIN_FILE));
  return {
    ...(Object.fromEntries(entries) as Record<CaFile, string>),
    ...(chain === undefined ? {} : { chain }),
  };
}

/**
 * Writes a new CA so that a crash leaves either nothing or all four files: every file is first
 * written and synced in a private staging directory, then hard-linked into place. Linking never
 * replaces an existing file, so two processes creating a CA at once cannot mix their halves: the
 * one that loses the first link gets an error. Only a crash between the four links (microseconds)
 * leaves a partial set, which `readCaFiles` then reports instead of silently starting over.
 * A crash before the links leaves a `.staging-*` directory behind: its keys never belonged to a
 * CA in use, and it may simply be deleted.
 */
export async function writeCaFiles(dir: string, material: CaMaterial): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
  const staging = await fs.mkdtemp(path.join(dir, STAGING_PREFIX));
  try {
    for (const file of COMMIT_ORDER) {
      await writeSynced(path.join(staging, CA_FILES[file]), material[file], modeOf(file));
    }
    if (material.chain !== undefined) {
      await writeSynced(path.join(staging, CA_CHAIN_FILE), material.chain, 0o644);
    }
    await syncDirectory(staging);
    // The chain after the four: a CA that another process created first leaves no chain of ours
    // beside its files. A crash between the two leaves an adopted intermediate without its
    // chain, which loading reports (authority.ts) instead of starting over.
    const files = [
      ...COMMIT_ORDER.map((file) => CA_FILES[file]),
      ...(material.chain === undefined ? [] : [CA_CHAIN_FILE]),
    ];
    for (const file of files) {
      try {
        await fs.link(path.join(staging, file), path.join(dir, file));
      } catch (error) {
        if (errorCode(error) === 'EEXIST') {
          throw new CaDirectoryError(
            `${path.join(dir, file)} appeared while this process was creating the CA: another ` +
              'process is creating it at the same time. Start one instance first.',
          );
        }
        throw error;
      }
    }
    await syncDirectory(dir);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

function modeOf(file: CaFile): number {
  return file === 'rootKey' || file === 'issuingKey' ? 0o600 : 0o644;
}

async function writeSynced(file: string, content: string, mode: number): Promise<void> {
  const handle = await fs.open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    mode,
  );
  try {
    await handle.writeFile(content, 'utf8');
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's text, or undefined when there is no such file. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
