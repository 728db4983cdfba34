import { readFile } from 'node:fs/promises';
import { decodePemBlocks } from '../ca/pem.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from '../ca/pkcs12-jobs.js';

export interface TruststoreSource {
  /** The operator's PEM file (`PORTAL_TAK_TRUSTSTORE_PEM`); absent: the portal's CA chain. */
  pemFile: string | undefined;
  /** The portal's CA chain as PEM: issuing CA, then root CA. */
  caChainPem: string;
}

/**
 * The one rule of what validates the TAK server's TLS certificate (docs/tak.md, the design's §6):
 * the operator's PEM file when one is configured, else the portal's CA chain. The file is read on
 * every call, so a replaced file takes effect without a restart. The packages' truststore holds
 * exactly these; TAK enrollment adds the portal's chain (takEnrollmentTrust).
 */
export async function truststoreCertificates(source: TruststoreSource): Promise<string[]> {
  if (source.pemFile === undefined) return [source.caChainPem];
  return [await readFile(source.pemFile, 'utf8')];
}

/**
 * The truststore file of the packages: legacy 3DES/SHA-1, certificates only, packed by
 * `packing` (the service's worker threads; by default on this thread).
 */
export async function buildTakTruststore(
  source: TruststoreSource,
  password: string,
  deployment: string,
  packing: Pkcs12Packing = PACK_ON_THIS_THREAD,
): Promise<Buffer> {
  return packing.trustStore({
    certificatesPem: await truststoreCertificates(source),
    password,
    friendlyNamePrefix: deployment,
  });
}

/**
 * The CAs a TAK-enrolled client stores with its certificate (the enrollment answer, the trust
 * package's truststore): the portal's chain (issuing CA, then root), which signs the client's
 * certificate and validates the enrollment face, then the TAK server's (truststoreCertificates)
 * when the operator's file holds others. ATAK uses them as the truststore of its TAK server
 * connection unless it imported one first, so they must validate both. DER, each once.
 */
export async function takEnrollmentTrust(source: TruststoreSource): Promise<Buffer[]> {
  const takServer = await truststoreCertificates(source);
  const all = [source.caChainPem, ...takServer].flatMap((pem) =>
    decodePemBlocks(pem, 'CERTIFICATE'),
  );
  return all.filter((der, index) => all.findIndex((other) => other.equals(der)) === index);
}
