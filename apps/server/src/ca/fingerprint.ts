import { createHash, X509Certificate } from 'node:crypto';

/**
 * A certificate's SHA-256 fingerprint as TAK Server writes and compares it
 * (`RemoteUtil.getCertSHA256Fingerprint`: the hash of the DER encoding, upper-case hex, a colon
 * between bytes), e.g. in UserAuthenticationFile.xml's `fingerprint`.
 */
export function takFingerprint(certificatePem: string): string {
  const der = new X509Certificate(certificatePem).raw;
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return hex.match(/../g)?.join(':') ?? '';
}
