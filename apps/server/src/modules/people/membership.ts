import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { lockForTransaction } from '../../db/transaction.js';
import { ForbiddenError } from '../../errors.js';
import type { MemberRegistry } from '../certificates/member-issuance.js';
import { findMemberByCallsign } from './repository.js';
import { MEMBERSHIP_LOCK } from './revocation.js';

/** Membership as issuing sees it: only an active member is issued a certificate. */
export class Membership implements MemberRegistry {
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
