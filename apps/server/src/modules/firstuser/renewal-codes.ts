import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { lockForTransaction } from '../../db/transaction.js';
import { NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { generateCode, hashCode } from '../auth/codes.js';
import { deleteUnusedLoginCodes, insertLoginCode } from './login-code-repository.js';
import { findMember } from '../people/service.js';
import { MEMBERSHIP_LOCK } from '../people/revocation.js';

/** How long a renewal code can be used: long enough to reach a member who is away. */
export const RENEWAL_CODE_TTL_MS = 72 * 3_600_000;

export interface RenewalCode {
  code: string;
  expiresAt: Date;
}

/**
 * Renewal codes: after a member's key expired, an admin makes them a
 * single-use code; entered on /login (token/code/exchange) it signs them in under their own
 * callsign, straight to the key download, with no new enrollment or approval. Stored only as a
 * hash, like every login code; a new code replaces the member's unused one.
 */
export class RenewalCodes {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
  ) {}

  /** 404 unless `callsign` is an active member (a revoked one never comes back this way). */
  create(actor: Actor, callsign: string): Promise<RenewalCode> {
    const at = this.now().getTime();
    const code = generateCode(CODE_LENGTH.renewal);
    const expiresAt = at + RENEWAL_CODE_TTL_MS;
    return this.db.transaction().execute(async (trx) => {
      // Under the lock a revocation either comes first (no code) or after (the code is refused).
      await lockForTransaction(trx, MEMBERSHIP_LOCK);
      const member = await findMember(trx, callsign);
      if (member?.status !== 'active') throw new NotFoundError(`No active member ${callsign}`);
      const replaced = await deleteUnusedLoginCodes(trx, 'renewal', member.callsign);
      await insertLoginCode(trx, {
        codeHash: hashCode(code),
        kind: 'renewal',
        subjectCallsign: member.callsign,
        createdAt: at,
        expiresAt,
      });
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'renewal-code.create',
        target: member.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { expiresAt: new Date(expiresAt).toISOString(), replaced },
      });
      return { code, expiresAt: new Date(expiresAt) };
    });
  }
}
