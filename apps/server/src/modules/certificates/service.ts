import { X509Certificate } from 'node:crypto';
import type { CertificateAuthority, IssuedCertificate } from '../../ca/authority.js';
import type { KeyPairSupply } from '../../ca/key-pool.js';
import type { LeafSigning } from '../../ca/leaf.js';
import type { OcspLookup } from '../../ca/ocsp.js';
import type { TakPresence } from './presence.js';
import { ocspQuestion, readOcspAnswer, type OcspAnswer } from '../../ca/ocsp-check.js';
import { revocationReasonCode } from './revocation-reasons.js';
import type { Pkcs12Format } from '../../ca/pkcs12.js';
import type { Pkcs12Packing } from '../../ca/pkcs12-jobs.js';
import type { KeyAlgorithm } from '../../ca/key-pair.js';
import type { CertificatePurpose, Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { Kysely } from 'kysely';
import {
  ignoredCertificateMetrics,
  type CertificateMetrics,
} from '../../metrics/portal-metrics.js';
import type { CertificateLookup } from '../../tls/client-certificate.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import {
  MemberIssuer,
  type DeviceKey,
  type GeneratedKey,
  type MemberCertificate,
  type MemberIssueRequest,
  type MemberKeyPair,
  type MemberKeystore,
  type MemberRegistry,
} from './member-issuance.js';
import { defaultConcurrentMints, MintingSlots } from './minting-limits.js';
import {
  caIssuersStamp,
  lastExpiryOf,
  listCaIssuers,
  countIssuedCertificates,
  findCertificateBySerial,
  firstIssuanceTime,
  liveCertificates,
  newestCertificateOf,
  listRevokedCertificates,
  recordIssuedCertificate,
  revocationStamp,
  revokeCertificatesOf,
  type RevocationStamp,
} from './repository.js';

/** How many certificates the record holds, of any CA (`ca adopt` needs none). */
export function countRecordedCertificates(executor: Executor): Promise<number> {
  return countIssuedCertificates(executor);
}

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

/** How stale the rollover state may be on a hot path (OCSP, every request): a few seconds. */
export const ISSUERS_MAX_AGE_MS = 5_000;

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
  /** Where issued and revoked certificates and key generations are counted (Prometheus). */
  metrics?: CertificateMetrics;
  /** Key pairs made ahead for keys made here (`PORTAL_KEY_POOL_SIZE`); none: made on request. */
  keyPool?: KeyPairSupply;
  /** Where OCSP requests and CRL fetches are recorded as evidence of a TAK Server (presence.ts). */
  presence?: TakPresence;
  /**
   * Where keystores are packed (the service's `Pkcs12Workers`, one per minting slot); default:
   * on this thread.
   */
  packing?: Pkcs12Packing;
  /**
   * Where members' certificates are built and signed when the CA's key is a file (the same
   * `Pkcs12Workers`); default: by the CA, on this thread.
   */
  signing?: LeafSigning;
}

/**
 * Issues member certificates and keeps the record of every one (docs/api.md), revokes them,
 * and keeps the published CRL in step with the record, whichever process revoked.
 */
export class CertificateService {
  /** Per issuing CA (generation): its CRL as last signed, and one signing at a time. */
  private readonly crls = new Map<
    number,
    { stamp: RevocationStamp; signedAt: number; value: Crl } | undefined
  >();
  private readonly crlsInFlight = new Map<number, Promise<Crl>>();
  /** The rollover state the CA was last given (`refreshIssuers`), and when it was read. */
  private issuersStamp: { stamp: string; readAt: number } | undefined;
  private issuersInFlight: Promise<void> | undefined;
  private readonly now: () => Date;
  private readonly memberIssuer: MemberIssuer;
  private readonly metrics: CertificateMetrics;
  private readonly presence: TakPresence | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ca: CertificateAuthority,
    private readonly policy: CertificatePolicy,
    options: CertificateServiceOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.metrics = options.metrics ?? ignoredCertificateMetrics;
    this.presence = options.presence;
    this.memberIssuer = new MemberIssuer(
      db,
      ca,
      options.members,
      policy.validityDays,
      {
        keysPerHour: options.keysPerHour ?? 10,
        maxKeysPerMember: options.maxKeysPerMember ?? 10,
        slots: options.mintingSlots ?? new MintingSlots(defaultConcurrentMints()),
        refusalPauseMs: options.refusalPauseMs ?? 1000,
      },
      this.now,
      this.metrics,
      options.keyPool,
      options.packing,
      options.signing,
    );
  }

  /** The current issuing CA and every CA above it (what a key issued now chains to). */
  get chainPem(): string {
    return this.ca.chainPem;
  }

  /**
   * What relying parties trust (`/ca/ca.pem`, truststores, packages): `chainPem`, and during a
   * rollover the issuing CA before the current one too (ca/authority.ts `trustPem`).
   */
  get trustPem(): string {
    return this.ca.trustPem;
  }

  /**
   * Gives the CA the issuing CAs rollovers made, as the database has them now, when they changed
   * since the last look (a rollover begun or finished by the CLI or another instance). Reads
   * one aggregate row; `maxAgeMs` lets a caller on a hot path (every request) skip even that
   * while the last look is that recent. Mints and CRLs look every time (maxAgeMs 0).
   */
  async refreshIssuers(maxAgeMs = 0): Promise<void> {
    const last = this.issuersStamp;
    if (last !== undefined && this.now().getTime() - last.readAt < maxAgeMs) return;
    this.issuersInFlight ??= this.readIssuers().finally(() => {
      this.issuersInFlight = undefined;
    });
    return this.issuersInFlight;
  }

  private async readIssuers(): Promise<void> {
    const readAt = this.now().getTime();
    const stamp = await caIssuersStamp(this.db);
    if (this.issuersStamp?.stamp !== stamp) {
      const issuers = await listCaIssuers(this.db);
      await this.ca.useIssuers(issuers, issuers.at(-1)?.finishedAt === null);
    }
    this.issuersStamp = { stamp, readAt };
  }

  /** The configured algorithm of keys made here (`PORTAL_KEY_ALGORITHM`). */
  get memberKeyAlgorithm(): KeyAlgorithm {
    return this.policy.keyAlgorithm;
  }

  /**
   * Issues a member a certificate, the one way to do so (member-issuance.ts): checks that they
   * are active and within their limits, mints, and records and audits in one transaction under
   * the membership lock. With `{ generate }` the key pair is made here and its private key comes
   * back to the caller; with `{ publicKey }` (a device's CSR) only the certificate does. 403 for
   * a member who is not active, 429 past a limit, 400 for a device key this CA does not sign.
   */
  issueForMember(request: MemberIssueRequest<GeneratedKey>): Promise<MemberKeyPair>;
  issueForMember(request: MemberIssueRequest<DeviceKey>): Promise<MemberCertificate>;
  async issueForMember(request: MemberIssueRequest): Promise<MemberCertificate | MemberKeyPair> {
    await this.refreshIssuers();
    return this.memberIssuer.issue(request);
  }

  /**
   * `issueForMember` with a key made here (`PORTAL_KEY_ALGORITHM`), packed as the member's
   * keystore (docs/api.md) in the same minting slot as the key generation, before anything is
   * recorded: the private key leaves only inside the keystore.
   */
  async issueKeystore(
    request: Omit<MemberIssueRequest<GeneratedKey>, 'key'>,
    format: Pkcs12Format,
  ): Promise<MemberKeystore> {
    await this.refreshIssuers();
    return this.memberIssuer.issueKeystore(
      { ...request, key: { generate: this.policy.keyAlgorithm } },
      format,
    );
  }

  /** When `callsign` got their first key (any purpose, revoked or not); undefined: none yet. */
  firstKeyIssuedAt(callsign: string): Promise<number | undefined> {
    return firstIssuanceTime(this.db, callsign);
  }

  /**
   * Issues and records a TLS server certificate (for this portal, a TAK server or a proxy), and
   * audits it as done by `actor`: the portal itself for its own, `cli` for server-cert.
   */
  async issueServerCertificate(
    dnsNames: string[],
    actor: Actor = { callsign: 'portal', clientAddress: null },
  ): Promise<IssuedCertificate> {
    await this.refreshIssuers();
    this.metrics.mintStarted();
    let issued: IssuedCertificate;
    try {
      issued = await this.ca.issueServerCertificate({ dnsNames });
    } finally {
      this.metrics.mintEnded();
    }
    await this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      await recordIssuedCertificate(trx, {
        serial: issued.serial,
        callsign: issued.commonName,
        purpose: 'server',
        notBefore: issued.notBefore.getTime(),
        notAfter: issued.notAfter.getTime(),
        issuedAt: at,
        caGeneration: issued.caGeneration,
      });
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'certificate.server',
        target: issued.commonName,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { serial: issued.serial, names: dnsNames },
      });
    });
    this.metrics.certificateIssued('server');
    return issued;
  }

  /** For the mTLS face: what the record says about a presented certificate. */
  readonly lookup: CertificateLookup = async (serial) => {
    const found = await findCertificateBySerial(this.db, serial);
    return (
      found && {
        callsign: found.callsign,
        revokedAt: found.revokedAt,
        madeBy: found.madeBy,
        server: found.purpose === 'server',
      }
    );
  };

  /**
   * For the OCSP responder: good, revoked (when, and why), or unknown to this CA's record; unknown
   * too for a key of another issuing CA than the one asked about (`generation`, default 1).
   */
  readonly ocspStatus = async (serial: string, generation?: number): ReturnType<OcspLookup> => {
    const found = await findCertificateBySerial(this.db, serial);
    if (found === undefined) return { status: 'unknown' };
    if (generation !== undefined && found.caGeneration !== generation) {
      return { status: 'unknown' };
    }
    if (found.revokedAt === null) return { status: 'good' };
    const reason = revocationReasonCode(found.revocationReason);
    return {
      status: 'revoked',
      revokedAt: new Date(found.revokedAt),
      ...(reason === undefined ? {} : { reason }),
    };
  };

  /**
   * Answers a DER-encoded OCSP request with a response of the delegated OCSP signer, cached until
   * the record's status of a certificate asked about changes (ca/ocsp.ts).
   */
  async respondOcsp(requestDer: Buffer): Promise<Buffer> {
    // A rollover another process began is seen within a few seconds.
    await this.refreshIssuers(ISSUERS_MAX_AGE_MS);
    return this.ca.respondOcsp(requestDer, this.ocspStatus);
  }

  /**
   * `respondOcsp` for a relying party at `clientAddress` (`/ca/ocsp`): the recorded keys it asked
   * about are queued as checked (presence.ts) once the answer is made. The answer is the same
   * whether or not that is ever written. A new signature spends one of the address's share.
   */
  async respondOcspTo(requestDer: Buffer, clientAddress: string | null): Promise<Buffer> {
    const asked: string[] = [];
    await this.refreshIssuers(ISSUERS_MAX_AGE_MS);
    const answer = await this.ca.respondOcsp(
      requestDer,
      async (serial, generation) => {
        const status = await this.ocspStatus(serial, generation);
        if (status.status !== 'unknown') asked.push(serial);
        return status;
      },
      clientAddress ?? undefined,
    );
    this.presence?.ocspAsked(asked, clientAddress);
    return answer;
  }

  /** A relying party at `clientAddress` fetched the CRL (`/ca/crl.pem`, `/ca/crl.der`). */
  crlFetchedBy(clientAddress: string | null): void {
    this.presence?.crlFetched(clientAddress);
  }

  /** The certificate issued last to `callsign`, revoked or not (any case). */
  async newestOf(callsign: string): Promise<{ serial: string } | undefined> {
    return newestCertificateOf(this.db, callsign);
  }

  /**
   * Asks the portal's own OCSP responder about `serial` (the code path that answers `/ca/ocsp`)
   * and reads the signed answer as a relying party would (`ca/ocsp-check.ts`): what any TAK
   * server or browser checking this certificate would be told now.
   */
  async askOcsp(serial: string): Promise<OcspAnswer> {
    await this.refreshIssuers();
    const generation = (await findCertificateBySerial(this.db, serial))?.caGeneration;
    const issuer =
      (generation === undefined ? undefined : this.ca.issuingCertificatePemOf(generation)) ??
      this.ca.issuingCertificatePem;
    const question = ocspQuestion(issuer, serial);
    return readOcspAnswer(await this.respondOcsp(question.der), question, issuer);
  }

  /**
   * Revokes every certificate of `callsign` (or only the unexpired ones, `live`) inside the
   * caller's transaction. They are counted as
   * revoked here: a transaction rolled back afterwards (only a database failure does that today)
   * leaves the count ahead, which a rate shrugs off.
   */
  async revokeAllOf(
    executor: Executor,
    callsign: string,
    reason: string,
    which: 'all' | 'live' = 'all',
  ): Promise<string[]> {
    const revoked = await revokeCertificatesOf(executor, callsign, {
      at: this.now().getTime(),
      reason,
      liveOnly: which === 'live',
    });
    this.countRevoked(revoked);
    return revoked.map((certificate) => certificate.serial);
  }

  /** Counts revoked certificates by purpose (Prometheus), as a revocation in a transaction made them. */
  countRevoked(revoked: readonly { purpose: CertificatePurpose }[]): void {
    for (const purpose of new Set(revoked.map((certificate) => certificate.purpose))) {
      const count = revoked.filter((certificate) => certificate.purpose === purpose).length;
      this.metrics.certificatesRevoked(purpose, count);
    }
  }

  /** How many unexpired, unrevoked keys `callsign` holds (any case). */
  async liveKeyCount(executor: Executor, callsign: string): Promise<number> {
    return (await liveCertificates(executor, callsign, this.now().getTime())).length;
  }

  /**
   * The current CRL. Re-signed when the record of revocations changed since the last one (on
   * this or any other instance, or by the CLI) or when it is older than `crlResignIntervalMs`.
   * Signed on demand, so no CRL handed out was signed longer ago than that, however long the
   * portal sat idle before the request.
   */
  async currentCrl(generation?: number): Promise<Crl> {
    await this.refreshIssuers();
    const of = generation ?? this.ca.generation;
    const stamp = await revocationStamp(this.db);
    const cached = this.crls.get(of);
    if (
      cached !== undefined &&
      sameStamp(cached.stamp, stamp) &&
      this.now().getTime() - cached.signedAt < crlResignIntervalMs(this.policy.crlValidityDays)
    ) {
      return cached.value;
    }
    let signing = this.crlsInFlight.get(of);
    if (signing === undefined) {
      signing = this.signCrl(stamp, of).finally(() => {
        this.crlsInFlight.delete(of);
      });
      this.crlsInFlight.set(of, signing);
    }
    return signing;
  }

  /**
   * The issuing CAs whose CRLs are published, newest first: the trusted ones (the current one,
   * and the one before it during a rollover), then each retired one until the last key it
   * issued would have expired (docs/operations.md). A generation that is not published is not
   * served (`/ca/crl/{n}.der` answers 404 for it).
   */
  async publishedCrlGenerations(): Promise<number[]> {
    await this.refreshIssuers();
    const trusted = this.ca.trustedGenerations;
    const now = this.now().getTime();
    const retired: number[] = [];
    for (const generation of this.ca.generations.toReversed()) {
      if (trusted.includes(generation)) continue;
      const last = await lastExpiryOf(this.db, generation);
      if (last !== undefined && last > now) retired.push(generation);
    }
    return [...trusted, ...retired];
  }

  /** Every published CRL (`publishedCrlGenerations`), the current issuing CA's first. */
  async publishedCrls(): Promise<Crl[]> {
    const generations = await this.publishedCrlGenerations();
    return Promise.all(generations.map((generation) => this.currentCrl(generation)));
  }

  /**
   * The CRL of `/ca/crl.der`: the oldest published issuing CA's. The first issuing CA's keys
   * name that URL, so it stays theirs through a rollover until the last of them would have
   * expired; each later CA's keys name `/ca/crl/{n}.der`.
   */
  async oldestPublishedCrl(): Promise<Crl> {
    const generations = await this.publishedCrlGenerations();
    return this.currentCrl(Math.min(...generations));
  }

  /** The certificate (DER) of issuing CA `generation`; undefined for one not held. */
  issuingCaDer(generation: number): Buffer | undefined {
    const pem = this.ca.issuingCertificatePemOf(generation);
    return pem === undefined ? undefined : new X509Certificate(pem).raw;
  }

  private async signCrl(stamp: RevocationStamp, generation: number): Promise<Crl> {
    const revoked = await listRevokedCertificates(this.db, undefined, generation);
    const thisUpdate = this.now();
    const crlNumber = BigInt(thisUpdate.getTime());
    const nextUpdate = new Date(thisUpdate.getTime() + this.policy.crlValidityDays * DAY_MS);
    const encoded = await this.ca.createCrl({
      generation,
      // As read: no reason codes are published, and no Date is made per entry.
      revoked: revoked.map(({ serial, revokedAt }) => ({ serial, revokedAt })),
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
    this.crls.set(generation, { stamp, signedAt: thisUpdate.getTime(), value });
    return value;
  }
}
