import type { CertificateAuthority, IssuedCertificate } from '../../ca/authority.js';
import type { OcspLookup } from '../../ca/ocsp.js';
import { buildPkcs12, type Pkcs12Format } from '../../ca/pkcs12.js';
import type { KeyAlgorithm } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { Kysely } from 'kysely';
import type { CertificateLookup } from '../../tls/client-certificate.js';
import {
  MemberIssuer,
  type DeviceKey,
  type GeneratedKey,
  type MemberCertificate,
  type MemberIssueRequest,
  type MemberKeyPair,
  type MemberRegistry,
} from './member-issuance.js';
import { defaultConcurrentMints, MintingSlots } from './minting-limits.js';
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
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How old a CRL may get before it is re-signed without any revocation: a day, or half its
 * validity when that is shorter, so whoever fetches it gets at least half the validity ahead.
 */
export function crlResignIntervalMs(crlValidityDays: number): number {
  return Math.min(DAY_MS, (crlValidityDays * DAY_MS) / 2);
}

function sameStamp(a: RevocationStamp, b: RevocationStamp): boolean {
  return a.revokedCount === b.revokedCount && a.lastRevokedAt === b.lastRevokedAt;
}

export interface CertificateServiceOptions {
  /** Who is an active member, and the membership lock (the people module's `Membership`). */
  members: MemberRegistry;
  /** New certificates per member in a rolling hour (`PORTAL_KEYS_PER_HOUR`; default 10). */
  keysPerHour?: number;
  /** Live keys per member before the oldest is superseded (`PORTAL_MAX_KEYS_PER_MEMBER`; 10). */
  maxKeysPerMember?: number;
  /** The slots of key generation and packing (default: `defaultConcurrentMints()` of them). */
  mintingSlots?: MintingSlots;
  /** How long a refused mint (429) is held before it is answered (default 1 s). */
  refusalPauseMs?: number;
  now?: () => Date;
}

/**
 * Issues member certificates and keeps the record of every one (product.md §5), revokes them,
 * and keeps the published CRL in step with the record, whichever process revoked.
 */
export class CertificateService {
  private crl: { stamp: RevocationStamp; signedAt: number; value: Crl } | undefined;
  private crlInFlight: Promise<Crl> | undefined;
  private readonly now: () => Date;
  private readonly mintingSlots: MintingSlots;
  private readonly memberIssuer: MemberIssuer;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ca: CertificateAuthority,
    private readonly policy: CertificatePolicy,
    options: CertificateServiceOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.mintingSlots = options.mintingSlots ?? new MintingSlots(defaultConcurrentMints());
    this.memberIssuer = new MemberIssuer(
      db,
      ca,
      options.members,
      policy.validityDays,
      {
        keysPerHour: options.keysPerHour ?? 10,
        maxKeysPerMember: options.maxKeysPerMember ?? 10,
        slots: this.mintingSlots,
        refusalPauseMs: options.refusalPauseMs ?? 1000,
      },
      this.now,
    );
  }

  get chainPem(): string {
    return this.ca.chainPem;
  }

  /** The configured algorithm of keys made here (`PORTAL_KEY_ALGORITHM`). */
  get memberKeyAlgorithm(): KeyAlgorithm {
    return this.policy.keyAlgorithm;
  }

  /**
   * Issues a member a certificate, the one way to do so (member-issuance.ts): checks that they
   * are active and within their limits, mints, and records and audits in one transaction under
   * the membership lock. With `{ generate }` the key pair is made here and its private key comes
   * back for the caller to pack (`packKeystore`) and forget; with `{ publicKey }` (a device's
   * CSR) only the certificate does. 403 for a member who is not active, 429 past a limit, 400
   * for a device key this CA does not sign.
   */
  issueForMember(request: MemberIssueRequest<GeneratedKey>): Promise<MemberKeyPair>;
  issueForMember(request: MemberIssueRequest<DeviceKey>): Promise<MemberCertificate>;
  issueForMember(request: MemberIssueRequest): Promise<MemberCertificate | MemberKeyPair> {
    return this.memberIssuer.issue(request);
  }

  /**
   * A member's keystore (product.md §5): password and friendly name are the callsign as the
   * record has it, the CA chain included. Packing shares the minting slots: with EC keys it is
   * the larger part of the work.
   */
  packKeystore(keyPair: MemberKeyPair, format: Pkcs12Format): Promise<Buffer> {
    return this.mintingSlots.run(() =>
      buildPkcs12({
        privateKeyPem: keyPair.privateKeyPem,
        certificatePem: keyPair.certificatePem,
        chainPem: keyPair.chainPem,
        password: keyPair.callsign,
        friendlyName: keyPair.callsign,
        format,
      }),
    );
  }

  /** Issues and records a TLS server certificate (for this portal, a TAK server or a proxy). */
  async issueServerCertificate(dnsNames: string[]): Promise<IssuedCertificate> {
    const issued = await this.ca.issueServerCertificate({ dnsNames });
    await recordIssuedCertificate(this.db, {
      serial: issued.serial,
      callsign: issued.commonName,
      purpose: 'server',
      notBefore: issued.notBefore.getTime(),
      notAfter: issued.notAfter.getTime(),
      issuedAt: this.now().getTime(),
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
    return revokeCertificatesOf(executor, callsign, { at: this.now().getTime(), reason });
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
    const value = await this.ca.createCrl({
      revoked: revoked.map((entry) => ({
        serial: entry.serial,
        revokedAt: new Date(entry.revokedAt),
      })),
      // Monotonic across restarts and instances without shared state: the signing time.
      crlNumber: BigInt(thisUpdate.getTime()),
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + this.policy.crlValidityDays * DAY_MS),
    });
    this.crl = { stamp, signedAt: thisUpdate.getTime(), value };
    return value;
  }
}
