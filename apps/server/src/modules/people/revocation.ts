import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { appendAuditEvent } from '../audit/repository.js';
import type { CertificateService } from '../certificates/service.js';
import { findMemberByCallsign, setMemberStatus } from './repository.js';

export interface RevocationResult {
  callsign: string;
  /** Certificates revoked by this call. */
  serials: string[];
  /** The invite code the member enrolled with, if any. */
  inviteCode: string | null;
}

/**
 * Revokes a member and every certificate they hold, in one transaction (product.md §5). The CRL
 * follows on its next request; the mTLS face refuses their certificates on the next request.
 * Undefined when there is no such member or they were revoked already. Rules about who may
 * revoke whom belong to the caller.
 */
export async function revokeMember(
  db: Kysely<Database>,
  certificates: CertificateService,
  input: { callsign: string; actor: string; clientAddress: string | null; now?: Date },
): Promise<RevocationResult | undefined> {
  const at = (input.now ?? new Date()).getTime();
  return db.transaction().execute(async (trx) => {
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
    return { callsign: member.callsign, serials, inviteCode: member.inviteCode };
  });
}
