import { createPrivateKey, createPublicKey, X509Certificate as NodeCertificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { Kysely } from 'kysely';
import type { CertificateAuthority } from '../../ca/authority.js';
import { readCaFiles } from '../../ca/ca-files.js';
import { createIssuingCa } from '../../ca/hierarchy.js';
import { takFingerprint } from '../../ca/fingerprint.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import {
  finishCaIssuer,
  insertCaIssuer,
  lastExpiryOf,
  listCaIssuers,
  liveKeysBefore,
  revokeSerials,
  type KeyOnOlderCa,
} from './repository.js';
import type { CertificateService } from './service.js';

/** A rollover step refused: the message says why and what to do; nothing was written. */
export class RolloverRefusedError extends Error {
  override readonly name = 'RolloverRefusedError';
}

const DAY_MS = 86_400_000;

/** How long members have to renew by default: from `begin` to the banner's date. */
export const DEFAULT_RENEWAL_DAYS = 30;

/** Why `finish` revokes an old CA's key: renewed (a newer one of the same purpose) or forced. */
export const RENEWED_REASON = 'superseded';
export const FORCED_REASON = 'cessationOfOperation';

/**
 * Who holds member keys that depend on the old issuing CA (`finish` refuses while anyone does).
 * Server certificates (`server-cert`, the portal's own listeners') are not counted and never
 * revoked here: a server sends the old CA in its chain, which leads to the root every
 * truststore keeps, so it keeps working after the finish; it is renewed on its own schedule
 * (docs/operations.md).
 */
export interface KeysOnOldCa {
  /** Unexpired, unrevoked member keys of the old CA whose holder has no newer one of that kind. */
  readonly pending: readonly KeyOnOlderCa[];
  /** Of those, the holders, each once. */
  readonly members: readonly string[];
  /** Old keys whose holder has since renewed them: `finish` revokes these as superseded. */
  readonly renewed: readonly KeyOnOlderCa[];
}

export interface RolloverBegun {
  readonly generation: number;
  readonly subject: string;
  readonly fingerprint: string;
  readonly renewBy: Date;
}

export interface RolloverFinished {
  readonly generation: number;
  /** Old keys revoked because their holder renewed them (superseded). */
  readonly revokedRenewed: number;
  /** Old keys revoked by `--force` (cessationOfOperation), by holder. */
  readonly revokedForced: readonly { callsign: string; purpose: string; serial: string }[];
  /** Until when the old CA's CRL stays published (its last key's expiry). */
  readonly crlPublishedUntil: Date | undefined;
}

/**
 * Where the rollover stands (docs/operations.md#rolling-the-issuing-ca-over): `none` (never begun, or finished: one issuing CA
 * trusted), `overlap` (both trusted, new keys from the new one).
 */
export interface RolloverStatus {
  readonly state: 'none' | 'overlap';
  /** The issuing CA new keys come from: 1 the CA directory's, n ≥ 2 a rollover's. */
  readonly generation: number;
  /** Whether this CA can roll over at all (not when the adopted CA issues itself). */
  readonly canRollOver: boolean;
  readonly begunAt: Date | undefined;
  readonly renewBy: Date | undefined;
  /** The last finish, when the state is `none` after a rollover. */
  readonly finishedAt: Date | undefined;
  /** The CA before the current one during the overlap. */
  readonly previous: { generation: number; subject: string; notAfter: Date } | undefined;
  readonly membersOnPrevious: number;
  readonly keysOnPrevious: number;
  /** What the operator does next (docs/operations.md). */
  readonly next: 'nothing' | 'begin' | 'renew' | 'finish' | 'new-root';
}

/** A member's key is on the CA being retired: renew by this date (the member home's banner). */
export interface RenewalNotice {
  readonly renewBy: Date;
  readonly generation: number;
}

/** Begin a rollover once the issuing CA has less than this left (the CA card's advice). */
export const BEGIN_WITHIN_DAYS = 400;

/**
 * The issuing CA's rollover (docs/operations.md): `begin` makes the next issuing
 * CA under the same root and records it in the database (every instance takes it up, the
 * generation's primary key the lock of one rollover at a time); `finish` retires the one before
 * it once no unexpired, unrevoked key depends on it, or with `force` revokes those that do. Each
 * step is one transaction with its audit event.
 */
export class CaRolloverService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ca: CertificateAuthority,
    private readonly certificates: CertificateService,
    private readonly caFiles: { dir: string; passphrase: string | undefined },
    private readonly now: () => Date,
  ) {}

  async begin(actor: Actor, options: { renewBy?: Date } = {}): Promise<RolloverBegun> {
    await this.certificates.refreshIssuers();
    if (this.ca.issuesFromRoot) {
      throw new RolloverRefusedError(
        'the portal issues keys with the adopted CA itself (ca adopt --issue-directly, or an ' +
          'adopted intermediate): there is no root key to sign a second issuing CA with. Roll ' +
          'the adopted CA over where it was made (docs/operations.md, "The root\'s end of life")',
      );
    }
    const issuers = await listCaIssuers(this.db);
    const last = issuers.at(-1);
    if (last !== undefined && last.finishedAt === null) {
      throw new RolloverRefusedError(
        `a rollover is under way already: issuing CA ${last.generation} was begun ` +
          `${new Date(last.begunAt).toISOString()} by ${last.begunBy}; finish it first ` +
          '(ca rollover finish)',
      );
    }
    const now = this.now();
    const current = new x509.X509Certificate(this.ca.issuingCertificatePem);
    const renewBy =
      options.renewBy ??
      new Date(Math.min(now.getTime() + DEFAULT_RENEWAL_DAYS * DAY_MS, current.notAfter.getTime()));
    if (renewBy.getTime() <= now.getTime() || renewBy.getTime() > current.notAfter.getTime()) {
      throw new RolloverRefusedError(
        `--renew-by must lie between now and the current issuing CA's end ` +
          `(${current.notAfter.toISOString()}), not ${renewBy.toISOString()}`,
      );
    }
    const generation = (last?.generation ?? 1) + 1;
    const root = await this.rootKey();
    const issuing = await createIssuingCa({
      parent: root.certificate,
      parentKey: root.key,
      organization: current.subjectName.getField('O')[0] ?? 'Callsign Portal',
      now,
      passphrase: this.caFiles.passphrase,
      generation,
    });
    const certificate = new x509.X509Certificate(issuing.certificatePem);
    const fingerprint = takFingerprint(issuing.certificatePem);
    try {
      await this.db.transaction().execute(async (trx) => {
        await insertCaIssuer(trx, {
          generation,
          certificatePem: issuing.certificatePem,
          keyPem: issuing.keyPem,
          begunAt: now.getTime(),
          begunBy: actor.callsign,
          renewBy: renewBy.getTime(),
        });
        await appendAuditEvent(trx, {
          at: now.getTime(),
          actor: actor.callsign,
          action: 'ca.rollover-begin',
          target: certificate.subject,
          outcome: 'success',
          clientAddress: actor.clientAddress,
          detail: {
            generation,
            previous: current.subject,
            fingerprint,
            renewBy: renewBy.toISOString(),
          },
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new RolloverRefusedError(
          `another process began the rollover to issuing CA ${generation} at the same moment: ` +
            'one rollover at a time (see ca rollover status)',
        );
      }
      throw error;
    }
    await this.certificates.refreshIssuers();
    return { generation, subject: certificate.subject, fingerprint, renewBy };
  }

  /** Who still depends on the CA before the current one (none when no rollover is under way). */
  async keysOnOldCa(executor: Kysely<Database> = this.db): Promise<KeysOnOldCa> {
    const issuers = await listCaIssuers(executor);
    const last = issuers.at(-1);
    if (last === undefined || last.finishedAt !== null) {
      return { pending: [], members: [], renewed: [] };
    }
    const keys = await liveKeysBefore(executor, last.generation, this.now().getTime());
    const pending = keys.filter((key) => !key.renewed);
    return {
      pending,
      members: [...new Set(pending.map((key) => key.callsign))],
      renewed: keys.filter((key) => key.renewed),
    };
  }

  async finish(actor: Actor, options: { force?: boolean } = {}): Promise<RolloverFinished> {
    const force = options.force === true;
    const result = await this.db.transaction().execute(async (trx) => {
      const last = (await listCaIssuers(trx)).at(-1);
      if (last === undefined || last.finishedAt !== null) {
        throw new RolloverRefusedError(
          'no rollover is under way: begin one first (ca rollover begin)',
        );
      }
      const keys = await this.keysOnOldCa(trx);
      if (keys.pending.length > 0 && !force) {
        throw new RolloverRefusedError(
          `${keys.pending.length} unexpired, unrevoked key(s) still depend on the old issuing CA ` +
            `(${describe(keys.pending)}): they renew (a new key of the same kind) or, with ` +
            '--force, are revoked',
        );
      }
      const at = this.now().getTime();
      const renewed = await revokeSerials(
        trx,
        keys.renewed.map((key) => key.serial),
        { at, reason: RENEWED_REASON },
      );
      const forced = force
        ? await revokeSerials(
            trx,
            keys.pending.map((key) => key.serial),
            { at, reason: FORCED_REASON },
          )
        : [];
      this.certificates.countRevoked([...renewed, ...forced]);
      if (!(await finishCaIssuer(trx, last.generation, at))) {
        throw new RolloverRefusedError('another process finished this rollover at the same moment');
      }
      const forcedSerials = new Set(forced.map((key) => key.serial));
      const revokedForced = keys.pending
        .filter((key) => forcedSerials.has(key.serial))
        .map(({ callsign, purpose, serial }) => ({ callsign, purpose, serial }));
      const lastExpiry = await lastExpiryOf(trx, last.generation - 1);
      const crlPublishedUntil = lastExpiry === undefined ? undefined : new Date(lastExpiry);
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'ca.rollover-finish',
        target: new NodeCertificate(last.certificatePem).subject.replaceAll('\n', ', '),
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: {
          generation: last.generation,
          retired: last.generation - 1,
          force,
          revokedRenewed: renewed.length,
          revokedForced: revokedForced.map((key) => `${key.callsign} (${key.purpose})`),
          crlPublishedUntil: crlPublishedUntil?.toISOString() ?? null,
        },
      });
      return {
        generation: last.generation,
        revokedRenewed: renewed.length,
        revokedForced,
        crlPublishedUntil,
      };
    });
    await this.certificates.refreshIssuers();
    return result;
  }

  async status(): Promise<RolloverStatus> {
    await this.certificates.refreshIssuers();
    const issuers = await listCaIssuers(this.db);
    const last = issuers.at(-1);
    const overlap = last !== undefined && last.finishedAt === null;
    const keys = await this.keysOnOldCa();
    const canRollOver = !this.ca.issuesFromRoot;
    const current = new x509.X509Certificate(this.ca.issuingCertificatePem);
    const root = new x509.X509Certificate(this.ca.topCertificatePem);
    const soon = this.now().getTime() + BEGIN_WITHIN_DAYS * DAY_MS;
    const previousPem = overlap ? this.ca.issuingCertificatePemOf(last.generation - 1) : undefined;
    const previous = previousPem === undefined ? undefined : new x509.X509Certificate(previousPem);
    let next: RolloverStatus['next'] = 'nothing';
    if (overlap) next = keys.pending.length > 0 ? 'renew' : 'finish';
    else if (canRollOver && current.notAfter.getTime() < soon) {
      // A new issuing CA cannot outlive the root: near the root's end, a new root first.
      next = root.notAfter.getTime() < soon ? 'new-root' : 'begin';
    } else if (!canRollOver && current.notAfter.getTime() < soon) next = 'new-root';
    return {
      state: overlap ? 'overlap' : 'none',
      generation: this.ca.generation,
      canRollOver,
      begunAt: overlap ? new Date(last.begunAt) : undefined,
      renewBy: overlap ? new Date(last.renewBy) : undefined,
      finishedAt:
        last?.finishedAt === null || last === undefined ? undefined : new Date(last.finishedAt),
      previous:
        previous === undefined || last === undefined
          ? undefined
          : {
              generation: last.generation - 1,
              subject: previous.subject,
              notAfter: previous.notAfter,
            },
      membersOnPrevious: keys.members.length,
      keysOnPrevious: keys.pending.length,
      next,
    };
  }

  /** The banner's notice for `callsign`: a key of theirs is on the CA being retired. */
  async renewalNotice(callsign: string): Promise<RenewalNotice | undefined> {
    const last = (await listCaIssuers(this.db)).at(-1);
    if (last === undefined || last.finishedAt !== null) return undefined;
    const keys = await this.keysOnOldCa();
    const lower = callsign.toLowerCase();
    const theirs = keys.pending.some((key) => key.callsign.toLowerCase() === lower);
    return theirs ? { renewBy: new Date(last.renewBy), generation: last.generation } : undefined;
  }

  /** The root's key from the CA directory, checked against its certificate. */
  private async rootKey(): Promise<{
    certificate: x509.X509Certificate;
    key: ReturnType<typeof createPrivateKey>;
  }> {
    const material = await readCaFiles(this.caFiles.dir);
    if (material === undefined) throw new RolloverRefusedError(`${this.caFiles.dir} holds no CA`);
    const certificate = new x509.X509Certificate(material.rootCertificate);
    let key;
    try {
      key = createPrivateKey({
        key: material.rootKey,
        ...(this.caFiles.passphrase === undefined ? {} : { passphrase: this.caFiles.passphrase }),
      });
    } catch (error) {
      throw new RolloverRefusedError(
        `cannot read the root key in ${this.caFiles.dir} (${error instanceof Error ? error.message : String(error)}): ` +
          'is PORTAL_CA_PASSPHRASE the one it was written with?',
      );
    }
    const keySpki = createPublicKey(key).export({ type: 'spki', format: 'der' });
    if (!Buffer.from(certificate.publicKey.rawData).equals(keySpki)) {
      throw new RolloverRefusedError(
        `the root key in ${this.caFiles.dir} does not match its certificate`,
      );
    }
    return { certificate, key };
  }
}

function describe(keys: readonly KeyOnOlderCa[]): string {
  const shown = keys.slice(0, 10).map((key) => `${key.callsign} (${key.purpose})`);
  return keys.length > shown.length
    ? `${shown.join(', ')}, and ${keys.length - shown.length} more`
    : shown.join(', ');
}
