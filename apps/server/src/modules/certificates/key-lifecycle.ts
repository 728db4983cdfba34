import { iso } from '@callsign/contract';
import type { Kysely } from 'kysely';
import type { ExpiringResponse, KeyEntry, KeyListResponse, KeyPurpose } from '@callsign/contract';
import { normalizeSerial } from '../../ca/serial.js';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../errors.js';
import type { CertificateMetrics } from '../../metrics/portal-metrics.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import {
  findCertificateBySerial,
  listMemberCertificates,
  membersWithKeysEndingBy,
  revokeCertificate,
  type IssuedCertificate,
} from './repository.js';
import { findMember, lastSeenOnTak } from '../people/service.js';
import { sameCallsign } from '../people/callsign.js';

const DAY_MS = 86_400_000;

/** Who revokes a key: its owner (a lost device) or an admin; recorded as the reason. */
export type KeyRevoker = 'owner' | 'admin';

const REVOCATION_REASON: Record<KeyRevoker, string> = {
  owner: 'revoked by owner',
  admin: 'revoked by admin',
};

type MemberKeyRecord = IssuedCertificate & { purpose: KeyPurpose };

/** A member's key, not a server's certificate (those are never anybody's key). */
function isMemberKey(certificate: IssuedCertificate): certificate is MemberKeyRecord {
  return certificate.purpose !== 'server';
}

function toEntry(
  certificate: MemberKeyRecord,
  currentSerial: string | null,
  asAdmin: boolean,
): KeyEntry {
  return {
    serial: certificate.serial,
    purpose: certificate.purpose,
    issued_at: iso(certificate.issuedAt),
    expires_at: iso(certificate.notAfter),
    revoked_at: certificate.revokedAt === null ? null : iso(certificate.revokedAt),
    client_uid: certificate.clientUid,
    current: certificate.serial === currentSerial,
    made_by: certificate.madeBy,
    last_checked_at: certificate.lastCheckedAt === null ? null : iso(certificate.lastCheckedAt),
    ...(asAdmin ? { last_checked_from: certificate.lastCheckedFrom } : {}),
  };
}

/** The serial as the record writes it; undefined for text that is no serial at all. */
function recordedForm(serial: string): string | undefined {
  try {
    return normalizeSerial(serial);
  } catch {
    return undefined;
  }
}

/**
 * A member's keys over their life (docs/api.md): the list of every key, revoking one key (a
 * lost device) as its owner or as an admin, and the members whose keys run out soon. Each
 * revocation is one transaction with its audit entry; the CRL and the mTLS face follow the
 * record on their next request (certificates/service.ts), on every instance.
 */
export class KeyLifecycle {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    /** Counts the keys revoked here (Prometheus). */
    private readonly metrics: CertificateMetrics,
    /** During a CA rollover, the date a member on the old CA renews by (rollover.ts). */
    private readonly renewalNotice: (
      callsign: string,
    ) => Promise<{ renewBy: Date } | undefined> = () => Promise.resolve(undefined),
  ) {}

  /** The keys of the caller, marking the one they call with (`currentSerial`, mTLS face). */
  async listOwn(callsign: string, currentSerial: string | null): Promise<KeyListResponse> {
    return this.list(callsign, currentSerial, false);
  }

  /**
   * The keys of any member (an admin asks), with the address that last checked each; 404 for a
   * callsign nobody holds.
   */
  async listOf(callsign: string): Promise<KeyListResponse> {
    const member = await findMember(this.db, callsign);
    if (member === undefined) throw new NotFoundError(`No member ${callsign}`);
    return this.list(member.callsign, null, true);
  }

  private async list(
    callsign: string,
    currentSerial: string | null,
    asAdmin: boolean,
  ): Promise<KeyListResponse> {
    const certificates = await listMemberCertificates(this.db, callsign);
    const lastSeen = await lastSeenOnTak(this.db, callsign);
    const notice = await this.renewalNotice(callsign);
    return {
      renew_ca_by: notice === undefined ? null : iso(notice.renewBy.getTime()),
      keys: certificates
        .filter(isMemberKey)
        .map((certificate) => toEntry(certificate, currentSerial, asAdmin)),
      last_seen_tak_at: lastSeen === null ? null : iso(lastSeen),
    };
  }

  /**
   * Revokes one unrevoked key of `owner`; 404 when there is no such key of theirs (another
   * member's serial included, so a serial tells nothing about whose it is). The key in use may
   * be revoked too: the next request made with it is refused.
   */
  async revoke(actor: Actor, owner: string, serial: string, by: KeyRevoker): Promise<void> {
    const recorded = recordedForm(serial);
    const at = this.now().getTime();
    const revoked = await this.db.transaction().execute(async (trx) => {
      if (recorded === undefined) return undefined;
      const certificate = await findCertificateBySerial(trx, recorded);
      if (
        certificate === undefined ||
        certificate.purpose === 'server' ||
        !sameCallsign(certificate.callsign, owner)
      ) {
        return undefined;
      }
      const reason = REVOCATION_REASON[by];
      if (!(await revokeCertificate(trx, certificate.serial, { at, reason }))) return undefined;
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'key.revoke',
        target: certificate.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { serial: certificate.serial, purpose: certificate.purpose, by },
      });
      return certificate;
    });
    if (revoked === undefined) throw new NotFoundError(`No unrevoked key ${serial} of ${owner}`);
    this.metrics.certificatesRevoked(revoked.purpose, 1);
  }

  /**
   * Active members whose newest unrevoked key ends within `days` from now (or has ended
   * already: they need a renewal code), soonest first.
   */
  async expiring(days: number): Promise<ExpiringResponse> {
    const until = this.now().getTime() + days * DAY_MS;
    const members = await membersWithKeysEndingBy(this.db, until);
    return {
      members: members.map((member) => ({
        callsign: member.callsign,
        expires_at: iso(member.expiresAt),
      })),
    };
  }
}
