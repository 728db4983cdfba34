import { X509Certificate } from 'node:crypto';
import {
  caPaths,
  iso,
  type TakEnrollmentWarning,
  type TakPresenceWarning,
  type TakReadinessResponse,
} from '@callsign/contract';
import { decodePemBlocks } from '../../ca/pem.js';
import type { Config } from '../../config.js';
import { truststoreCertificates } from '../../tak/truststore.js';
import type { RevocationFetch, TakPresence } from '../certificates/presence.js';
import type { CertificateService } from '../certificates/service.js';
import type { EnrollmentFaceTrustService } from './enrollment-face-trust.js';

const DAY_MS = 86_400_000;
/** The port ATAK enrolls on, whatever else it is told (docs/tak.md#what-was-tried-and-what-was-not). */
const ATAK_ENROLL_PORT = 8446;
/** No OCSP request for this long: no TAK Server is checking keys (docs/operations.md#tak-readiness). */
export const OCSP_SILENCE_WARNING_MS = DAY_MS;

type FetchAnswer = TakReadinessResponse['presence']['last_ocsp_check'];

function fetchAnswer(fetch: RevocationFetch | undefined, now: number): FetchAnswer {
  if (fetch === undefined) return null;
  return {
    at: iso(fetch.at),
    address: fetch.address,
    age_seconds: Math.max(0, Math.round((now - fetch.at) / 1000)),
  };
}

/** `CN=a, O=b` from Node's one-attribute-per-line form. */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

/**
 * What the portal can see of the TAK side without reaching the TAK Server (issue: readiness): the
 * server the packages point at, the truststore they carry, and the CRL a TAK Server loads. The
 * rest (its certificate, its verdict on member keys) is for `tak-check`, which connects.
 */
export class TakReadinessService {
  constructor(
    private readonly config: Config,
    private readonly certificates: CertificateService,
    private readonly presence: TakPresence,
    private readonly faceTrust: EnrollmentFaceTrustService,
    private readonly now: () => Date,
  ) {}

  async readiness(): Promise<TakReadinessResponse> {
    const { config } = this;
    const crl = await this.certificates.currentCrl();
    const now = this.now().getTime();
    return {
      tak: { host: config.takHost, port: config.takPort },
      truststore: await this.truststore(now),
      crl: {
        number: crl.crlNumber.toString(),
        this_update: crl.thisUpdate.toISOString(),
        next_update: crl.nextUpdate.toISOString(),
        age_seconds: Math.max(0, Math.round((now - crl.thisUpdate.getTime()) / 1000)),
        url: `${config.httpCaOrigin}${caPaths.crlPem}`,
      },
      presence: await this.presenceAnswer(now),
      check_command:
        `npm run --silent portal -- tak-check --host ${config.takHost} ` +
        `--port ${config.takPort}`,
      enrollment: await this.enrollment(),
    };
  }

  /**
   * The enrollment face as phones reach it: ATAK always enrolls on port 8446 of the TAK host, so
   * another public port is warned about, as is a certificate phones do not trust by themselves
   * (the QR code alone then fails; members import the trust package first).
   */
  private async enrollment(): Promise<TakReadinessResponse['enrollment']> {
    const face = this.config.takEnroll;
    const trust = await this.faceTrust.current();
    if (face === undefined || trust === undefined) return null;
    const warnings: TakEnrollmentWarning[] = [];
    if (face.publicPort !== ATAK_ENROLL_PORT) warnings.push('port-not-8446');
    if (!trust.trusted) warnings.push('phones-need-trust-package');
    return {
      host: this.config.takHost,
      port: face.publicPort,
      trusted_by_phones: trust.trusted,
      trust_basis: trust.basis,
      root: trust.root,
      chain_end: trust.chainEnd,
      warnings,
    };
  }

  /**
   * Who checked keys lately: the last OCSP request and CRL fetch (any instance), and the
   * warnings: no OCSP request for a day, a CRL fetch older than half the CRL's validity (before a
   * TAK Server's copy lapses and it refuses everyone).
   */
  private async presenceAnswer(now: number): Promise<TakReadinessResponse['presence']> {
    const fetches = await this.presence.lastFetches();
    const crlWarnAfterMs = (this.config.crlValidityDays * DAY_MS) / 2;
    const warnings: TakPresenceWarning[] = [];
    const { ocsp, crl } = fetches;
    if (ocsp === undefined) warnings.push('no-ocsp-check');
    else if (now - ocsp.at > OCSP_SILENCE_WARNING_MS) warnings.push('ocsp-check-old');
    if (crl === undefined) warnings.push('no-crl-fetch');
    else if (now - crl.at > crlWarnAfterMs) warnings.push('crl-fetch-old');
    return {
      last_ocsp_check: fetchAnswer(ocsp, now),
      last_crl_fetch: fetchAnswer(crl, now),
      crl_fetch_warn_after_seconds: crlWarnAfterMs / 1000,
      members_seen_last_day: await this.presence.membersSeenSince(now - DAY_MS),
      warnings,
    };
  }

  private async truststore(now: number): Promise<TakReadinessResponse['truststore']> {
    const file = this.config.takTruststorePemFile;
    const source = file === undefined ? 'portal-ca' : 'file';
    try {
      const pems = await truststoreCertificates({
        pemFile: file,
        caChainPem: this.certificates.trustPem,
      });
      const certificates = pems
        .flatMap((pem) => decodePemBlocks(pem, 'CERTIFICATE'))
        .map((der) => {
          const certificate = new X509Certificate(der);
          const notAfter = new Date(certificate.validTo);
          return {
            subject: oneLine(certificate.subject),
            issuer: oneLine(certificate.issuer),
            not_after: notAfter.toISOString(),
            expired: notAfter.getTime() <= now,
          };
        });
      return { source, file: file ?? null, certificates, error: null };
    } catch (error) {
      // The file is read at every download: a file gone since start is worth seeing here.
      const reason = error instanceof Error ? error.message : String(error);
      return { source, file: file ?? null, certificates: [], error: reason };
    }
  }
}
