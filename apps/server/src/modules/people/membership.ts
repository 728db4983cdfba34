import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { lockForTransaction } from '../../db/transaction.js';
import { ForbiddenError } from '../../errors.js';
import { findMemberByCallsign } from './repository.js';

/**
 * The lock every transaction takes that changes who is a member or an admin, or that issues a
 * member a certificate: revocation, promote, demote, key download. Under it the rules that read
 * several rows ("at least one admin remains", "a revoked member gets no new certificate") hold
 * on PostgreSQL too (db/transaction.ts).
 */
export const MEMBERSHIP_LOCK = 'membership';

/**
 * Membership as issuing sees it: only an active member is issued a certificate. It is the
 * certificates module's `MemberRegistry` (portal.ts hands it over), matched by shape, so that
 * people imports nothing of certificates.
 */
export class Membership {
  constructor(private readonly db: Kysely<Database>) {}

  async activeCallsign(callsign: string): Promise<string> {
    const member = await findMemberByCallsign(this.db, callsign);
    if (member?.status !== 'active') throw new ForbiddenError('Not a valid user');
    return member.callsign;
  }

  whileActive<T>(callsign: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, MEMBERSHIP_LOCK);
      const member = await findMemberByCallsign(trx, callsign);
      if (member?.status !== 'active') throw new ForbiddenError('Not a valid user');
      return work(trx);
    });
  }
}
