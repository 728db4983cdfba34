import type { Kysely } from 'kysely';
import type { IssuedCertificate } from '../../ca/authority.js';
import type { Database } from '../../db/schema.js';
import { lockForTransaction } from '../../db/transaction.js';
import { ForbiddenError } from '../../errors.js';
import { appendAuditEvent } from '../audit/repository.js';
import { findMemberByCallsign } from '../people/repository.js';
import { MEMBERSHIP_LOCK } from '../people/revocation.js';
import type { CertificateService } from './service.js';

export interface MemberIssuance {
  issued: IssuedCertificate;
  /** As the member's record has it. */
  callsign: string;
  purpose: 'member' | 'tak';
  /** The audit entry: who asked, for what, from where. Never key material. */
  actor: string;
  action: string;
  clientAddress: string | null;
  detail: Record<string, unknown>;
  at: number;
}

/**
 * Records a certificate minted for a member, in one transaction under the membership lock and
 * only while the member is still active: a revocation either comes first (nothing is recorded,
 * 403) or comes after and revokes this certificate too. Minting, the slow part, happens before.
 */
export async function recordMemberIssuance(
  db: Kysely<Database>,
  certificates: CertificateService,
  issuance: MemberIssuance,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, MEMBERSHIP_LOCK);
    const member = await findMemberByCallsign(trx, issuance.callsign);
    if (member?.status !== 'active') throw new ForbiddenError('Not a valid user');
    await certificates.record(trx, issuance.issued, issuance.callsign, issuance.purpose);
    await appendAuditEvent(trx, {
      at: issuance.at,
      actor: issuance.actor,
      action: issuance.action,
      target: issuance.callsign,
      outcome: 'success',
      clientAddress: issuance.clientAddress,
      detail: { serial: issuance.issued.serial, ...issuance.detail },
    });
  });
}
