import { createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A certificate request this CA cannot read or whose signature does not hold. */
export class BadCsrError extends Error {
  override readonly name = 'BadCsrError';
}

/** What a device's PKCS#10 request says, once its self-signature is checked. */
export interface CheckedCsr {
  /** The key the device made and will hold; its private half never leaves the device. */
  publicKey: KeyObject;
  /** Every CN of the subject, wherever it sits among the other names. */
  commonNames: string[];
}

/** At most this much DER: an RSA-4096 request is under 2 KB. */
const MAX_CSR_BYTES = 16 * 1024;

/**
 * Reads a PKCS#10 request and checks that it is signed by the key it carries (proof that the
 * sender holds that key). Requests signed with SHA-1 are accepted: ATAK signs its requests so;
 * the certificate the CA makes from it is signed with the CA's own algorithm. Throws BadCsrError.
 */
export async function checkCsr(der: Buffer): Promise<CheckedCsr> {
  if (der.length === 0 || der.length > MAX_CSR_BYTES) {
    throw new BadCsrError('the certificate request is empty or too large');
  }
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(der);
  } catch {
    throw new BadCsrError('the body is not a PKCS#10 certificate request');
  }
  let signed: boolean;
  try {
    signed = await request.verify(webcrypto);
  } catch {
    throw new BadCsrError(
      'the certificate request is signed with an algorithm this CA does not use',
    );
  }
  if (!signed) throw new BadCsrError('the certificate request’s signature does not hold');
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({
      key: Buffer.from(request.publicKey.rawData),
      format: 'der',
      type: 'spki',
    });
  } catch {
    throw new BadCsrError('the certificate request’s public key cannot be read');
  }
  return { publicKey, commonNames: request.subjectName.getField('CN') };
}
