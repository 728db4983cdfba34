import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { inTransaction, lockForTransaction, type Executor } from '../db/transaction.js';
import { NotFoundError } from '../errors.js';
import { appendAuditEvent } from '../modules/audit/service.js';
import type { Actor } from '../modules/auth/actor.js';
import type { CertificateService } from '../modules/certificates/service.js';
import { deactivateInviteCodesOf } from '../modules/invites/service.js';
import { MEMBERSHIP_LOCK } from '../modules/people/membership.js';
import {
  findMember,
  memberToRevoke,
  moveMember,
  type RevocationResult,
} from '../modules/people/service.js';

/**
 * Revokes a member and every certificate they hold, and deactivates the invite codes they
 * created (an admin's), in one transaction (docs/api.md): the
 * caller's when `executor` is one (so its rules and this revocation commit together), else a new
 * one. The CRL follows on its next request; the mTLS face refuses their certificates on the next
 * request. Undefined when there is no such member or they were revoked already. Rules about who
 * may revoke whom belong to the caller (an admin: `revokeMemberAsAdmin`; the operator's CLI).
 *
 * A command: it spans the people (the member), certificates (their keys) and invites (the codes
 * they made) modules, each changed through its own functions in this one transaction.
 */
export async function revokeMember(
  executor: Executor,
  certificates: CertificateService,
  input: { callsign: string; actor: string; clientAddress: string | null; now?: Date },
): Promise<RevocationResult | undefined> {
  const at = (input.now ?? new Date()).getTime();
  return inTransaction(executor, async (trx) => {
    await lockForTransaction(trx, MEMBERSHIP_LOCK);
    const member = await findMember(trx, input.callsign);
    if (member === undefined || member.status === 'revoked') return undefined;
    const changed = await moveMember(trx, member.callsign, {
      status: 'revoked',
      at,
      from: ['pending', 'active', 'rejected'],
    });
    if (!changed) return undefined;
    const serials = await certificates.revokeAllOf(trx, member.callsign, 'member revoked');
    await appendAuditEvent(trx, {
      at,
      actor: input.actor,
      action: 'member.revoke',
      target: member.callsign,
      outcome: 'success',
      clientAddress: input.clientAddress,
      detail: { certificates: serials.length },
    });
    const deactivatedInviteCodes = await deactivateInviteCodesOf(trx, member.callsign, {
      actor: { callsign: input.actor, clientAddress: input.clientAddress },
      reason: 'owner revoked',
      at,
    });
    return {
      callsign: member.callsign,
      serials,
      inviteCode: member.inviteCode,
      deactivatedInviteCodes,
    };
  });
}

/**
 * An admin revokes a member (DELETE people/{callsign}): the people module's rules
 * (`memberToRevoke`: 404 unknown or revoked, 409 self or last admin), then `revokeMember`, in one
 * transaction under the membership lock.
 */
export function revokeMemberAsAdmin(
  db: Kysely<Database>,
  certificates: CertificateService,
  actor: Actor,
  callsign: string,
  now: Date,
): Promise<RevocationResult> {
  return db.transaction().execute(async (trx) => {
    const target = await memberToRevoke(trx, actor, callsign);
    const result = await revokeMember(trx, certificates, {
      callsign: target.callsign,
      actor: actor.callsign,
      clientAddress: actor.clientAddress,
      now,
    });
    // Cannot happen: the member was found unrevoked under the lock.
    if (result === undefined) throw new NotFoundError(`No member ${callsign} to revoke`);
    return result;
  });
}
