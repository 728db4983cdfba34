import { X509Crl } from '@peculiar/x509';
import type { OcspAnswer } from '../../ca/ocsp-check.js';
import { normalizeSerial } from '../../ca/serial.js';
import type { CertificateService } from './service.js';

/**
 * What a revocation changed, read back from what relying parties see rather than from what the
 * revocation meant to do: the CRL the portal now publishes and its OCSP responder's answer.
 */
export interface RevocationReceipt {
  certificatesRevoked: number;
  /** The CRL published after the revocation; null when it could not be signed or read. */
  crl: { number: bigint; thisUpdate: Date; nextUpdate: Date; listsRevoked: number } | null;
  /** The member's newest certificate (by issue time), null when they never had one. */
  newestSerial: string | null;
  /** The responder's verified answer about `newestSerial`; null when it could not be asked. */
  ocsp: OcspAnswer | null;
}

/**
 * Checks a committed revocation. A check that fails is reported as null (and given to `onError`
 * for the log) rather than thrown: the revocation itself has already happened.
 */
export async function revocationReceipt(
  certificates: CertificateService,
  revoked: { callsign: string; serials: readonly string[] },
  onError: (error: unknown, check: 'crl' | 'ocsp') => void,
): Promise<RevocationReceipt> {
  const crl = await checkCrl(certificates, revoked.serials).catch((error: unknown) => {
    onError(error, 'crl');
    return null;
  });
  const newest = await certificates.newestOf(revoked.callsign);
  const ocsp =
    newest === undefined
      ? null
      : await certificates.askOcsp(newest.serial).catch((error: unknown) => {
          onError(error, 'ocsp');
          return null;
        });
  return {
    certificatesRevoked: revoked.serials.length,
    crl,
    newestSerial: newest?.serial ?? null,
    ocsp,
  };
}

/** The current CRL, and how many of `serials` it lists (read from the signed bytes). */
async function checkCrl(certificates: CertificateService, serials: readonly string[]) {
  const current = await certificates.currentCrl();
  const listed = new Set(
    new X509Crl(current.der).entries.map((entry) => normalizeSerial(entry.serialNumber)),
  );
  return {
    number: current.crlNumber,
    thisUpdate: current.thisUpdate,
    nextUpdate: current.nextUpdate,
    listsRevoked: serials.filter((serial) => listed.has(normalizeSerial(serial))).length,
  };
}
