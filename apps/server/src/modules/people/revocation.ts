import { inTransaction, lockForTransaction } from '../../db/transaction.js';
import type { Executor } from '../../db/transaction.js';
import { appendAuditEvent } from '../audit/service.js';
import type { CertificateService } from '../certificates/service.js';
import { deactivateInviteCodesOf } from '../invites/service.js';
import { findMemberByCallsign, setMemberStatus } from './repository.js';

/**
 * The lock every transaction takes that changes who is a member or an admin, or that issues a
 * member a certificate: revocation, promote, demote, key download. Under it the rules that read
 * several rows ("at least one admin remains", "a revoked member gets no new certificate") hold
 * on PostgreSQL too (db/transaction.ts).
 */
export const MEMBERSHIP_LOCK = 'membership';

export interface RevocationResult {
  callsign: string;
  /** Certificates revoked by this call. */
  serials: string[];
  /** The invite codes they had created, deactivated by this call. */
  deactivatedInviteCodes: string[];
  /** The invite code the member enrolled with, if any. */
  inviteCode: string | null;
}

/**
 * Revokes a member and every certificate they hold, and deactivates the invite codes they
 * created (an admin's), in one transaction (docs/api.md): the
 * caller's when `executor` is one (so its rules and this revocation commit together), else a new
 * one. The CRL follows on its next request; the mTLS face refuses their certificates on the next
 * request. Undefined when there is no such member or they were revoked already. Rules about who
 * may revoke whom belong to the caller.
 */
export async function revokeMember(
  executor: Executor,
  certificates: CertificateService,
  input: { callsign: string; actor: string; clientAddress: string | null; now?: Date },
): Promise<RevocationResult | undefined> {
  const at = (input.now ?? new Date()).getTime();
  return inTransaction(executor, async (trx) => {
    await lockForTransaction(trx, MEMBERSHIP_LOCK);
    const member = await findMemberByCallsign(trx, input.callsign);
    if (member === undefined || member.status === 'revoked') return undefined;
    const changed = await setMemberStatus(trx, member.callsign, {
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
