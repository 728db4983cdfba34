import type { CertificateAuthority, IssuedCertificate } from '../../ca/authority.js';
import type { OcspLookup } from '../../ca/ocsp.js';
import { buildPkcs12 } from '../../ca/pkcs12.js';
import type { KeyFormat } from '@callsign/contract';
import type { KeyAlgorithm } from '../../config.js';
import type { CertificatePurpose, Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { Kysely } from 'kysely';
import type { CertificateLookup } from '../../tls/client-certificate.js';
import { appendAuditEvent } from '../audit/repository.js';
import type { Actor } from '../auth/actor.js';
import {
  ignoredCertificateMetrics,
  type CertificateMetrics,
} from '../../metrics/portal-metrics.js';
import {
  findCertificateBySerial,
  listRevokedCertificates,
  recordIssuedCertificate,
  revocationStamp,
  revokeCertificatesOf,
  type RevocationStamp,
} from './repository.js';

export interface CertificatePolicy {
  validityDays: number;
  keyAlgorithm: KeyAlgorithm;
  /** `nextUpdate` of the CRL, in days after its signing (`PORTAL_CRL_VALIDITY_DAYS`). */
  crlValidityDays: number;
}

export interface Crl {
  pem: string;
  der: Buffer;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How old a CRL may get before it is re-signed without any revocation: a day, or half its
 * validity when that is shorter, so whoever fetches it gets at least half the validity ahead.
 */
export function crlResignIntervalMs(crlValidityDays: number): number {
  return Math.min(DAY_MS, (crlValidityDays * DAY_MS) / 2);
}

function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

function sameStamp(a: RevocationStamp, b: RevocationStamp): boolean {
  return a.revokedCount === b.revokedCount && a.lastRevokedAt === b.lastRevokedAt;
}

/**
 * Issues member certificates and keeps the record of every one (product.md §5), revokes them,
 * and keeps the published CRL in step with the record, whichever process revoked.
 */
export class CertificateService {
  private crl: { stamp: RevocationStamp; signedAt: number; value: Crl } | undefined;
  private crlInFlight: Promise<Crl> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ca: CertificateAuthority,
    private readonly policy: CertificatePolicy,
    private readonly now: () => Date = () => new Date(),
    /** Where issued and revoked certificates and key generations are counted (Prometheus). */
    private readonly metrics: CertificateMetrics = ignoredCertificateMetrics,
  ) {}

  get chainPem(): string {
    return this.ca.chainPem;
  }

  /**
   * Mints a fresh key pair and certificate for `callsign` without recording it: key generation is
   * slow, so callers do it before their transaction and `record` it inside. The private key is
   * returned to the caller to package and is never stored.
   */
  async mintMemberCertificate(callsign: string): Promise<IssuedCertificate> {
    return this.generatingKey(() =>
      this.ca.issueMemberCertificate({
        callsign,
        validityDays: this.policy.validityDays,
        keyAlgorithm: this.policy.keyAlgorithm,
      }),
    );
  }

  /** Runs a key generation, counted in flight while it runs. */
  private async generatingKey<T>(generate: () => Promise<T>): Promise<T> {
    this.metrics.mintStarted();
    try {
      return await generate();
    } finally {
      this.metrics.mintEnded();
    }
  }

  /**
   * A fresh certificate for a member packed as their keystore (product.md §5): password and
   * friendly name are the callsign as the member's record has it, the CA chain included. Not
   * recorded: callers record it with `recordMemberIssuance` once they know it may be handed out.
   */
  async mintMemberKeystore(
    callsign: string,
    format: KeyFormat,
  ): Promise<{ issued: IssuedCertificate; pfx: Buffer }> {
    const issued = await this.mintMemberCertificate(callsign);
    const pfx = await buildPkcs12({
      privateKeyPem: issued.privateKeyPem,
      certificatePem: issued.certificatePem,
      chainPem: issued.chainPem,
      password: callsign,
      friendlyName: callsign,
      format,
    });
    return { issued, pfx };
  }

  /**
   * Records an issued certificate, inside the caller's transaction when it passes one. It is
   * counted as issued here, as it is recorded: a transaction rolled back afterwards (only a
   * database failure does that today) leaves the count one ahead, which a rate shrugs off.
   */
  async record(
    executor: Executor,
    issued: IssuedCertificate,
    callsign: string,
    purpose: CertificatePurpose,
  ): Promise<void> {
    await recordIssuedCertificate(executor, {
      serial: issued.serial,
      callsign,
      purpose,
      notBefore: issued.notBefore.getTime(),
      notAfter: issued.notAfter.getTime(),
      issuedAt: this.now().getTime(),
    });
    this.metrics.certificateIssued(purpose);
  }

  /** Mints and records a member certificate in one go (CLI, tests). */
  async issueMemberCertificate(
    callsign: string,
    purpose: 'member' | 'tak' = 'member',
  ): Promise<IssuedCertificate> {
    const issued = await this.mintMemberCertificate(callsign);
    await this.record(this.db, issued, callsign, purpose);
    return issued;
  }

  /**
   * Issues and records a TLS server certificate (for this portal, a TAK server or a proxy), and
   * audits it as done by `actor`: the portal itself for its own, `cli` for server-cert.
   */
  async issueServerCertificate(
    dnsNames: string[],
    actor: Actor = { callsign: 'portal', clientAddress: null },
  ): Promise<IssuedCertificate> {
    const issued = await this.generatingKey(() => this.ca.issueServerCertificate({ dnsNames }));
    const name = dnsNames[0] ?? '';
    await this.db.transaction().execute(async (trx) => {
      await this.record(trx, issued, name, 'server');
      await appendAuditEvent(trx, {
        at: this.now().getTime(),
        actor: actor.callsign,
        action: 'certificate.server',
        target: name,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { serial: issued.serial, names: dnsNames },
      });
    });
    return issued;
  }

  /** For the mTLS face: what the record says about a presented certificate. */
  readonly lookup: CertificateLookup = async (serial) => {
    const found = await findCertificateBySerial(this.db, serial);
    return found && { callsign: found.callsign, revokedAt: found.revokedAt };
  };

  /** For the OCSP responder: good, revoked (and when), or unknown to this CA's record. */
  readonly ocspStatus: OcspLookup = async (serial) => {
    const found = await findCertificateBySerial(this.db, serial);
    if (found === undefined) return { status: 'unknown' };
    if (found.revokedAt === null) return { status: 'good' };
    return { status: 'revoked', revokedAt: new Date(found.revokedAt) };
  };

  /** Answers a DER-encoded OCSP request with a response signed by the issuing CA. */
  async respondOcsp(requestDer: Buffer): Promise<Buffer> {
    return this.ca.respondOcsp(requestDer, this.ocspStatus);
  }

  /** Revokes every certificate of `callsign` inside the caller's transaction. */
  async revokeAllOf(executor: Executor, callsign: string, reason: string): Promise<string[]> {
    const revoked = await revokeCertificatesOf(executor, callsign, {
      at: this.now().getTime(),
      reason,
    });
    for (const purpose of new Set(revoked.map((certificate) => certificate.purpose))) {
      const count = revoked.filter((certificate) => certificate.purpose === purpose).length;
      this.metrics.certificatesRevoked(purpose, count);
    }
    return revoked.map((certificate) => certificate.serial);
  }

  /**
   * The current CRL. Re-signed when the record of revocations changed since the last one (on
   * this or any other instance, or by the CLI) or when it is older than `crlResignIntervalMs`.
   * Signed on demand, so no CRL handed out was signed longer ago than that, however long the
   * portal sat idle before the request.
   */
  async currentCrl(): Promise<Crl> {
    const stamp = await revocationStamp(this.db);
    const cached = this.crl;
    if (
      cached !== undefined &&
      sameStamp(cached.stamp, stamp) &&
      this.now().getTime() - cached.signedAt < crlResignIntervalMs(this.policy.crlValidityDays)
    ) {
      return cached.value;
    }
    this.crlInFlight ??= this.signCrl(stamp).finally(() => {
      this.crlInFlight = undefined;
    });
    return this.crlInFlight;
  }

  private async signCrl(stamp: RevocationStamp): Promise<Crl> {
    const revoked = await listRevokedCertificates(this.db);
    const thisUpdate = this.now();
    const crlNumber = BigInt(thisUpdate.getTime());
    const nextUpdate = new Date(thisUpdate.getTime() + this.policy.crlValidityDays * DAY_MS);
    const encoded = await this.ca.createCrl({
      revoked: revoked.map((entry) => ({
        serial: entry.serial,
        revokedAt: new Date(entry.revokedAt),
      })),
      // Monotonic across restarts and instances without shared state: the signing time.
      crlNumber,
      thisUpdate,
      nextUpdate,
    });
    // As the CRL states them: in whole seconds.
    const value: Crl = {
      ...encoded,
      crlNumber,
      thisUpdate: wholeSeconds(thisUpdate),
      nextUpdate: wholeSeconds(nextUpdate),
    };
    this.crl = { stamp, signedAt: thisUpdate.getTime(), value };
    return value;
  }
}
