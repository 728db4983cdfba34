import { readFile } from 'node:fs/promises';
import type { Config } from '../../config.js';
import { phoneTrustOf, type PhoneDistrustReason } from '../../tak/phone-trust.js';
import { keptCertificateFile, TAK_ENROLL_FILE_STEM } from '../../tls/server-credentials.js';

/** Whether phones trust the TAK enrollment face by themselves, and why (docs/tak.md#one-scan-enrollment-the-tak-enrollment-face). */
export interface EnrollmentFaceTrust {
  /** True: the QR code alone enrolls. False: phones import the trust package first. */
  trusted: boolean;
  /**
   * `root`: its certificate chains to `root`, one phones hold; `setting`: proxy mode, where
   * `PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED` says it; else why the certificate is not trusted.
   */
  basis: 'root' | 'setting' | PhoneDistrustReason;
  root: string | null;
  /** For `unknown-root`: the issuer the chain stops at (the portal's root CA by default). */
  chainEnd: string | null;
}

/**
 * The enrollment face's trust, read afresh at each call (a renewed certificate counts at once):
 * with built-in TLS from the certificate the face presents (the operator's
 * `PORTAL_TAK_ENROLL_TLS_CERT`, or the one the portal's CA issued it, kept in the data
 * directory) against the roots ATAK trusts (tak/phone-trust.ts); behind the proxy, which holds
 * the certificate, from `PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED`. Undefined while the face is off.
 */
export class EnrollmentFaceTrustService {
  constructor(
    private readonly config: Config,
    private readonly now: () => Date,
  ) {}

  async current(): Promise<EnrollmentFaceTrust | undefined> {
    const face = this.config.takEnroll;
    if (face === undefined) return undefined;
    if (face.publiclyTrusted !== undefined) {
      return { trusted: face.publiclyTrusted, basis: 'setting', root: null, chainEnd: null };
    }
    const file = face.tlsCertFile ?? keptCertificateFile(this.config.tlsDir, TAK_ENROLL_FILE_STEM);
    let chainPem: string;
    try {
      chainPem = await readFile(file, 'utf8');
    } catch (error) {
      // Before the listener's first start issued it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      chainPem = '';
    }
    const verdict = phoneTrustOf(chainPem, { host: this.config.takHost, now: this.now() });
    return verdict.trusted
      ? { trusted: true, basis: 'root', root: verdict.root, chainEnd: null }
      : { trusted: false, basis: verdict.reason, root: null, chainEnd: verdict.chainEnd ?? null };
  }
}

/** One line for the operator (the start-up banner and log): does the QR code alone enroll? */
export function enrollmentFaceTrustLine(trust: EnrollmentFaceTrust, takHost: string): string {
  if (trust.trusted) {
    return trust.basis === 'root'
      ? `phones trust it (its certificate chains to ${trust.root ?? ''}): the QR code alone enrolls`
      : 'phones trust nginx’s certificate (PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED=true): the QR code alone enrolls';
  }
  const why: Record<Exclude<EnrollmentFaceTrust['basis'], 'root'>, string> = {
    setting: 'PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED is not true',
    'unknown-root': `its certificate chains to ${trust.chainEnd ?? ''}, not to a root ATAK trusts`,
    'wrong-host': `its certificate is not for ${takHost}`,
    expired: 'its certificate is out of date',
    'not-a-chain': 'its certificate file is not a chain (each certificate signed by the next)',
    'no-certificate': 'it has no certificate yet',
  };
  const basis = trust.basis === 'root' ? 'unknown-root' : trust.basis;
  return `phones need the trust package first: ${why[basis]}`;
}
