import type { KeyObject } from 'node:crypto';
import { takFingerprint } from '../../ca/fingerprint.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditAction } from '@callsign/contract';
import type { Kysely, Transaction } from 'kysely';
import type {
  CertificateAuthority,
  IssuedCertificate,
  SignedCertificate,
} from '../../ca/authority.js';
import type { KeyPairSupply } from '../../ca/key-pool.js';
import type { LeafSigning } from '../../ca/leaf.js';
import {
  acceptedPublicKeyType,
  UnsupportedPublicKeyError,
  type KeyAlgorithm,
} from '../../ca/key-pair.js';
import type { Pkcs12Format } from '../../ca/pkcs12.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from '../../ca/pkcs12-jobs.js';
import type { CertificatePurpose, Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, TooManyRequestsError } from '../../errors.js';
import type { CertificateMetrics } from '../../metrics/portal-metrics.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { HourlyRefusals, MintsInFlight, type MintingSlots } from './minting-limits.js';
import {
  liveCertificates,
  recentIssuanceTimes,
  recordIssuedCertificate,
  revokeCertificate,
} from './repository.js';

/** What a member's certificate is for; `server` certificates are issued elsewhere. */
export type MemberPurpose = Exclude<CertificatePurpose, 'server'>;

/** The key pair is made here, and its private key handed to the caller to pack. */
export interface GeneratedKey {
  generate: KeyAlgorithm;
}

/** The key pair was made elsewhere (on the member's device); only its public key is here. */
export interface DeviceKey {
  publicKey: KeyObject;
  /** TAK Server's channels EKU beside clientAuth: a TAK client that sent its `version`. */
  takChannels?: boolean;
}

/** Where the member's public key comes from: the one difference between the two ways to issue. */
export type KeySource = GeneratedKey | DeviceKey;

/** A member's certificate as issued and recorded; `callsign` is the record's spelling (the CN). */
export type MemberCertificate = SignedCertificate & { readonly callsign: string };

/** A member's certificate with the private key made for it here (never stored). */
export type MemberKeyPair = IssuedCertificate & { readonly callsign: string };

/** A member's certificate and the keystore that carries it with its key (never stored). */
export type MemberKeystore = MemberCertificate & { readonly keystore: Buffer };

export interface MemberIssueRequest<K extends KeySource = KeySource> {
  /** Any case; the certificate carries the record's spelling. */
  callsign: string;
  purpose: MemberPurpose;
  key: K;
  /**
   * Who asks (the member, an admin, or the CLI), for the audit log; their `madeBy` (the admin
   * whose code they came through) is recorded with the certificate.
   */
  actor: Actor;
  /** The audit entry's action and what it records besides the serial. Never key material. */
  audit: { action: AuditAction; detail?: Record<string, unknown> };
  /** The enrolling device's own id (a TAK client's), recorded with the certificate. */
  clientUid?: string;
  /**
   * The caller's own step in the transaction that records the certificate (a TAK enrollment
   * spends its one-time token there). When it throws, nothing is recorded or audited, and the
   * certificate is never handed out.
   */
  alongside?: (trx: Transaction<Database>, certificate: MemberCertificate) => Promise<void>;
}

/**
 * What issuing needs to know about membership; the people module provides it, so that this
 * module need not reach into another module's tables.
 */
export interface MemberRegistry {
  /** The record's spelling of an active member's callsign; 403 (ForbiddenError) otherwise. */
  activeCallsign(callsign: string): Promise<string>;
  /**
   * Runs `work` in one transaction under the membership lock, after checking that the member is
   * still active (403 otherwise): a revocation then either comes first or revokes what `work`
   * recorded too.
   */
  whileActive<T>(callsign: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/** The part of the CA that makes member certificates: the seam an HSM-backed CA or a test fills. */
export type MemberSigner = Pick<
  CertificateAuthority,
  'issueMemberCertificate' | 'signMemberCertificate'
>;

export interface IssuanceLimits {
  /** New certificates per member in any rolling hour (`PORTAL_KEYS_PER_HOUR`), on every instance. */
  keysPerHour: number;
  /**
   * Live keys (unrevoked, unexpired) a member may hold (`PORTAL_MAX_KEYS_PER_MEMBER`): issuing
   * one more revokes the oldest, so keys forgotten on lost devices do not pile up.
   */
  maxKeysPerMember: number;
  /** Key generations (with the keystore packing that follows) at once in this process. */
  slots: MintingSlots;
  /**
   * How long a refused request (429) is held before it is answered: a client that retries in
   * a loop then asks about once a second, not thousands of times (bench/RESULTS.md, Isolation).
   */
  refusalPauseMs: number;
}

const HOUR_MS = 3_600_000;

/** Why a key was revoked when a newer one pushed it past the bound on live keys. */
export const SUPERSEDED = 'superseded';

/**
 * The one way a member gets a certificate (docs/api.md): the member must be active;
 * one mint per member at a time; at most `keysPerHour` a member an hour; key generation in a
 * bounded number of slots; then, in one transaction under the membership lock, the member is
 * checked again, the certificate recorded and the issuance audited, and the oldest live keys
 * beyond `maxKeysPerMember` revoked as superseded (each audited). Nothing is recorded when any
 * step refuses; a refused request makes no key.
 */
export class MemberIssuer {
  private readonly inFlight = new MintsInFlight();
  private readonly refusals = new HourlyRefusals();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly signer: MemberSigner,
    private readonly members: MemberRegistry,
    private readonly validityDays: number,
    private readonly limits: IssuanceLimits,
    private readonly now: () => Date,
    /** Counts issued certificates, key generations in flight and refused mints (Prometheus). */
    private readonly metrics: CertificateMetrics,
    /** Key pairs made ahead; without one (or when it is empty) keys are made on the request. */
    private readonly keyPool?: KeyPairSupply,
    /** Where keystores are packed: the service's worker threads, or this thread. */
    private readonly packing: Pkcs12Packing = PACK_ON_THIS_THREAD,
    /** Where a file-key CA builds and signs the certificates (the same threads); none: the CA's. */
    private readonly signing?: LeafSigning,
  ) {}

  /** A certificate for a key made here (the private key comes back) or a device's key. */
  async issue(request: MemberIssueRequest): Promise<MemberCertificate | MemberKeyPair> {
    const key = request.key;
    const { minted } =
      'generate' in key
        ? await this.run(request, (callsign) => this.generate(callsign, key.generate), nothing)
        : await this.run(request, (callsign) => this.signDeviceKey(callsign, key), nothing);
    return minted;
  }

  /**
   * A certificate for a key made here, packed as the member's keystore (docs/api.md): the
   * password and friendly name are the callsign as the record has it, the CA chain included.
   */
  async issueKeystore(
    request: MemberIssueRequest<GeneratedKey>,
    format: Pkcs12Format,
  ): Promise<MemberKeystore> {
    const { minted, packed } = await this.run(
      request,
      (callsign) => this.generate(callsign, request.key.generate),
      (pair) =>
        this.packing.keystore({
          privateKeyPem: pair.privateKeyPem,
          certificatePem: pair.certificatePem,
          chainPem: pair.chainPem,
          password: pair.callsign,
          friendlyName: pair.callsign,
          format,
        }),
    );
    // The private key leaves only inside the keystore.
    return {
      serial: minted.serial,
      commonName: minted.commonName,
      callsign: minted.callsign,
      notBefore: minted.notBefore,
      notAfter: minted.notAfter,
      certificatePem: minted.certificatePem,
      chainPem: minted.chainPem,
      caGeneration: minted.caGeneration,
      keystore: packed,
    };
  }

  /**
   * The pipeline of both: the refusals, then `mint` and `pack` together in one minting slot (so
   * that a burst packs as it mints instead of piling its packing up at the end), then the record
   * and the audit entry in one transaction under the membership lock. A refused request is
   * answered after the pause.
   */
  private async run<M extends SignedCertificate, P>(
    request: MemberIssueRequest,
    mint: (callsign: string) => Promise<M>,
    pack: (minted: M & { callsign: string }) => Promise<P>,
  ): Promise<{ minted: M & { callsign: string }; packed: P }> {
    try {
      return await this.runNow(request, mint, pack);
    } catch (error) {
      // Held without a claim on the member or a slot: the pause costs a timer and a socket.
      if (error instanceof TooManyRequestsError) await sleep(this.limits.refusalPauseMs);
      throw error;
    }
  }

  private async runNow<M extends SignedCertificate, P>(
    request: MemberIssueRequest,
    mint: (callsign: string) => Promise<M>,
    pack: (minted: M & { callsign: string }) => Promise<P>,
  ): Promise<{ minted: M & { callsign: string }; packed: P }> {
    // A device's key that this CA would not sign is bad input: 400 before anything else.
    if ('publicKey' in request.key) checkDeviceKey(request.key.publicKey);
    // The refusals that need no database come first: a member retrying in a loop costs little.
    const release = this.refusedAs('one-at-a-time', () => this.inFlight.claim(request.callsign));
    try {
      this.refusedAs('keys-per-hour', () => {
        this.refusals.check(request.callsign, this.now().getTime());
      });
      const callsign = await this.members.activeCallsign(request.callsign);
      await this.refusedAsAsync('keys-per-hour', () => this.checkHourlyLimit(this.db, callsign));
      const made = await this.limits.slots.run(async () => {
        const minted = { ...(await this.counted(request.key, () => mint(callsign))), callsign };
        return { minted, packed: await pack(minted) };
      });
      const { minted } = made;
      const madeBy = request.actor.madeBy;
      await this.members.whileActive(callsign, async (trx) => {
        // Again under the lock: other instances may have issued to this member meanwhile.
        await this.checkHourlyLimit(trx, callsign);
        const at = this.now().getTime();
        await recordIssuedCertificate(trx, {
          serial: minted.serial,
          callsign,
          purpose: request.purpose,
          notBefore: minted.notBefore.getTime(),
          notAfter: minted.notAfter.getTime(),
          issuedAt: at,
          clientUid: request.clientUid ?? null,
          madeBy: madeBy ?? null,
          sha256Fingerprint: takFingerprint(minted.certificatePem),
          caGeneration: minted.caGeneration,
        });
        await request.alongside?.(trx, { ...minted, callsign });
        await appendAuditEvent(trx, {
          at,
          actor: request.actor.callsign,
          action: request.audit.action,
          target: callsign,
          outcome: 'success',
          clientAddress: request.actor.clientAddress,
          detail: {
            serial: minted.serial,
            ...request.audit.detail,
            ...(madeBy === undefined ? {} : { made_by: madeBy }),
          },
        });
        await this.supersedeBeyondBound(trx, callsign, minted.serial, at, request.actor);
      });
      this.metrics.certificateIssued(request.purpose);
      return made;
    } finally {
      release();
    }
  }

  /**
   * Revokes the member's oldest live keys while they hold more than the bound, the one just
   * issued (`newSerial`) never among them. Inside the issuing transaction, under the lock.
   */
  private async supersedeBeyondBound(
    trx: Transaction<Database>,
    callsign: string,
    newSerial: string,
    at: number,
    actor: Actor,
  ): Promise<void> {
    const older = (await liveCertificates(trx, callsign, at)).filter(
      (certificate) => certificate.serial !== newSerial,
    );
    const excess = older.length + 1 - this.limits.maxKeysPerMember;
    for (const { serial, purpose } of older.slice(0, Math.max(0, excess))) {
      await revokeCertificate(trx, serial, { at, reason: SUPERSEDED });
      // Counted before the commit, like revokeAllOf: only a database failure rolls back here.
      this.metrics.certificatesRevoked(purpose, 1);
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'key.supersede',
        target: callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { serial, supersededBy: newSerial },
      });
    }
  }

  /** Runs a limit's check, counting its 429 as a refused mint of `reason`. */
  private refusedAs<T>(reason: string, check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (error instanceof TooManyRequestsError) this.metrics.mintRefused(reason);
      throw error;
    }
  }

  private async refusedAsAsync(reason: string, check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (error) {
      if (error instanceof TooManyRequestsError) this.metrics.mintRefused(reason);
      throw error;
    }
  }

  /** A mint; a key pair made here counts as a key generation in flight meanwhile. */
  private async counted<M>(key: KeySource, mint: () => Promise<M>): Promise<M> {
    if (!('generate' in key)) return mint();
    this.metrics.mintStarted();
    try {
      return await mint();
    } finally {
      this.metrics.mintEnded();
    }
  }

  /** Taken from the pool only here, in the minting slot: a refused request uses up no key. */
  private generate(callsign: string, algorithm: KeyAlgorithm): Promise<IssuedCertificate> {
    const keyPair = this.keyPool?.take(algorithm);
    return this.signer.issueMemberCertificate({
      callsign,
      validityDays: this.validityDays,
      keyAlgorithm: algorithm,
      ...(keyPair === undefined ? {} : { keyPair }),
      ...(this.signing === undefined ? {} : { signing: this.signing }),
    });
  }

  private signDeviceKey(callsign: string, key: DeviceKey): Promise<SignedCertificate> {
    return this.signer.signMemberCertificate({
      callsign,
      validityDays: this.validityDays,
      publicKey: key.publicKey,
      ...(key.takChannels === true ? { takChannels: true } : {}),
      ...(this.signing === undefined ? {} : { signing: this.signing }),
    });
  }

  /** 429 with the seconds until the oldest issuance of the last hour leaves the window. */
  private async checkHourlyLimit(executor: Executor, callsign: string): Promise<void> {
    const now = this.now().getTime();
    const { keysPerHour } = this.limits;
    const times = await recentIssuanceTimes(executor, callsign, now - HOUR_MS, keysPerHour);
    const oldestCounted = times[keysPerHour - 1];
    if (oldestCounted !== undefined) {
      throw this.refusals.refuse(callsign, oldestCounted + HOUR_MS, now);
    }
  }
}

/** No packing: the certificate (and key) are handed over as they are. */
function nothing(): Promise<undefined> {
  return Promise.resolve(undefined);
}

function checkDeviceKey(publicKey: KeyObject): void {
  try {
    acceptedPublicKeyType(publicKey);
  } catch (error) {
    if (error instanceof UnsupportedPublicKeyError) throw new BadRequestError(error.message);
    throw error;
  }
}
