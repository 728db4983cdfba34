import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { lockForTransaction, type Executor } from '../../db/transaction.js';
import { BadRequestError, countsAsFailure } from '../../errors.js';
import { takenCallsigns } from '../people/service.js';
import { findReservedCallsigns, type InviteCode } from './repository.js';
import { sameCallsign } from '../people/callsign.js';

/**
 * A bulk slip reserves its callsign while it admits people: nobody else may take it. Whoever
 * takes a callsign (enroll, add-admin) holds this lock shared, so they run together; a bulk call
 * holds it exclusively between checking its callsigns and inserting its slips, so no callsign is
 * taken in between (on PostgreSQL; SQLite runs one write transaction at a time anyway).
 */
const RESERVATIONS_LOCK = 'callsign-reservations';

export function lockReservations(
  trx: Transaction<Database>,
  mode: 'taking' | 'reserving',
): Promise<void> {
  return lockForTransaction(trx, RESERVATIONS_LOCK, mode === 'taking' ? 'shared' : 'exclusive');
}

/** The callsigns (lower-cased) a member holds in any state or a live slip reserves. */
export async function unavailableCallsigns(
  executor: Executor,
  callsigns: readonly string[],
  now: number,
): Promise<Set<string>> {
  const [taken, reserved] = await Promise.all([
    takenCallsigns(executor, callsigns),
    findReservedCallsigns(executor, callsigns, now),
  ]);
  return new Set([...taken, ...reserved]);
}

/**
 * Refuses (400, a failed guess) a callsign that `invite` may not enroll: another one than its
 * slip reserves, or one another live slip reserves. `invite` is null for add-admin.
 */
export async function refuseReservedCallsign(
  executor: Executor,
  callsign: string,
  invite: InviteCode | null,
  now: number,
): Promise<void> {
  const reservedHere = invite?.reservedCallsign ?? null;
  if (reservedHere !== null) {
    if (!sameCallsign(reservedHere, callsign)) {
      throw countsAsFailure(new BadRequestError('This invite is for another callsign'));
    }
    return;
  }
  if ((await findReservedCallsigns(executor, [callsign], now)).size > 0) {
    throw countsAsFailure(new BadRequestError('Callsign taken'));
  }
}
