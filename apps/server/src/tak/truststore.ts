import { readFile } from 'node:fs/promises';
import { buildTrustStorePkcs12 } from '../ca/trust-store.js';

export interface TruststoreSource {
  /** The operator's PEM file (`PORTAL_TAK_TRUSTSTORE_PEM`); absent: the portal's CA chain. */
  pemFile: string | undefined;
  /** The portal's CA chain as PEM: issuing CA, then root CA. */
  caChainPem: string;
}

/**
 * The certificates that validate the TAK server's TLS certificate (docs/tak.md). The file is
 * read on every call, so a replaced file takes effect without a restart.
 */
export async function truststoreCertificates(source: TruststoreSource): Promise<string[]> {
  if (source.pemFile === undefined) return [source.caChainPem];
  return [await readFile(source.pemFile, 'utf8')];
}

/** The truststore file of the packages: legacy 3DES/SHA-1, certificates only. */
export async function buildTakTruststore(
  source: TruststoreSource,
  password: string,
  deployment: string,
): Promise<Buffer> {
  return buildTrustStorePkcs12({
    certificatesPem: await truststoreCertificates(source),
    password,
    friendlyNamePrefix: deployment,
  });
}
