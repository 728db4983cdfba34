import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { IssuedCertificate } from '../ca/authority.js';
import type { TlsCredentials } from './dual-face-server.js';

/** Issues (and records) a server certificate from the portal's CA: the certificates service. */
export interface ServerCertificateIssuer {
  issueServerCertificate(dnsNames: string[]): Promise<IssuedCertificate>;
}

const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** The file stem of the TAK enrollment face's kept certificate (`tak-enroll.crt.pem`). */
export const TAK_ENROLL_FILE_STEM = 'tak-enroll';

/** Where a listener's certificate from the portal's CA is kept: `{tlsDir}/{stem}.crt.pem`. */
export function keptCertificateFile(tlsDir: string, stem: string): string {
  return path.join(tlsDir, `${stem}.crt.pem`);
}

export interface ServerCredentialOptions {
  /** Names the certificate must cover: `{host}` and `mtls.{host}`. */
  names: string[];
  tlsDir: string;
  /** Operator-given files (e.g. a Let's Encrypt pair); when set, used as they are. */
  certFile: string | undefined;
  keyFile: string | undefined;
  /** How the kept files are named in `tlsDir`: `{fileStem}.crt.pem`, `.key.pem` (`server`). */
  fileStem?: string;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** True when the kept certificate still covers every name and is not about to expire. */
function stillGood(certificatePem: string, names: string[], now: Date): boolean {
  const certificate = new X509Certificate(certificatePem);
  const coversAll = names.every((name) => certificate.checkHost(name, { subject: 'never' }));
  const expiresAt = new Date(certificate.validTo).getTime();
  return coversAll && expiresAt - now.getTime() > RENEW_BEFORE_MS;
}

async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, file);
}

/**
 * The TLS certificate a listener presents (both faces; the TAK enrollment face has its own): the
 * operator's files when configured, else one from the portal's own CA for `names`, kept in the
 * data directory and renewed when the names change or it is within 30 days of expiry.
 */
export async function loadServerCredentials(
  options: ServerCredentialOptions,
  certificates: ServerCertificateIssuer,
  now: Date = new Date(),
): Promise<TlsCredentials & { issued: boolean }> {
  if (options.certFile !== undefined && options.keyFile !== undefined) {
    const [cert, key] = await Promise.all([
      readFile(options.certFile, 'utf8'),
      readFile(options.keyFile, 'utf8'),
    ]);
    return { cert, key, issued: false };
  }
  const stem = options.fileStem ?? 'server';
  const certFile = keptCertificateFile(options.tlsDir, stem);
  const keyFile = path.join(options.tlsDir, `${stem}.key.pem`);
  const [cert, key] = await Promise.all([readIfPresent(certFile), readIfPresent(keyFile)]);
  if (cert !== undefined && key !== undefined && stillGood(cert, options.names, now)) {
    return { cert, key, issued: false };
  }
  const issued = await certificates.issueServerCertificate(options.names);
  const chain = [issued.certificatePem, ...issued.chainPem.slice(0, -1)].join('');
  await mkdir(options.tlsDir, { recursive: true, mode: 0o700 });
  await writeAtomically(keyFile, issued.privateKeyPem, 0o600);
  await writeAtomically(certFile, chain, 0o644);
  return { cert: chain, key: issued.privateKeyPem, issued: true };
}
