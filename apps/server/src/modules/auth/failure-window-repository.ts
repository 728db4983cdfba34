import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/**
 * The `failure_windows` table: per client address, when its current window began and how many
 * attempts it holds (failed guesses, and guesses still being evaluated). failure-budget.ts
 * holds the rule; this is its SQL.
 */

export interface Reservation {
  address: string;
  /** The window the attempt was counted in: giving it back touches only that window. */
  startedAt: number;
}

export interface ReserveInput {
  address: string;
  now: number;
  windowMs: number;
  /** Attempts a window may hold. */
  limit: number;
}

/**
 * Counts one attempt for the address, only while its window holds fewer than `limit` (a window
 * older than `windowMs` starts again at one). One conditional upsert, atomic on SQLite and
 * PostgreSQL: however many arrive at once, through however many instances, at most `limit`
 * are counted. Undefined when the window is full.
 */
export async function reserveAttempt(
  executor: Executor,
  input: ReserveInput,
): Promise<Reservation | undefined> {
  const { address, now, limit } = input;
  const over = now - input.windowMs;
  const row = await executor
    .insertInto('failure_windows')
    .values({ address, started_at: now, failures: 1 })
    .onConflict((conflict) =>
      conflict
        .column('address')
        .doUpdateSet({
          // Every expression sees the row as it was: a finished window starts again at 1.
          failures: sql<number>`case when failure_windows.started_at <= ${over} then 1 else failure_windows.failures + 1 end`,
          started_at: sql<number>`case when failure_windows.started_at <= ${over} then ${now} else failure_windows.started_at end`,
        })
        .where((eb) =>
          eb.or([
            eb('failure_windows.started_at', '<=', over),
            eb('failure_windows.failures', '<', limit),
          ]),
        ),
    )
    .returning('started_at')
    .executeTakeFirst();
  return row === undefined ? undefined : { address, startedAt: row.started_at };
}

/** Gives back one attempt of the window it was counted in (none once that window is over). */
export async function releaseAttempt(executor: Executor, reservation: Reservation): Promise<void> {
  await executor
    .updateTable('failure_windows')
    .set((eb) => ({ failures: eb('failures', '-', 1) }))
    .where('address', '=', reservation.address)
    .where('started_at', '=', reservation.startedAt)
    .where('failures', '>', 0)
    .execute();
}

/** When the address's current window began, if it has one. */
export async function windowStart(
  executor: Executor,
  address: string,
): Promise<number | undefined> {
  const row = await executor
    .selectFrom('failure_windows')
    .select('started_at')
    .where('address', '=', address)
    .executeTakeFirst();
  return row?.started_at;
}

/** The window `address` counts in now (its start and failures), if any. */
export async function windowOf(
  executor: Executor,
  address: string,
): Promise<{ startedAt: number; failures: number } | undefined> {
  const row = await executor
    .selectFrom('failure_windows')
    .select(['started_at', 'failures'])
    .where('address', '=', address)
    .executeTakeFirst();
  return row === undefined ? undefined : { startedAt: row.started_at, failures: row.failures };
}

/** Forgets windows that began at or before `before`. */
export async function deleteWindowsBefore(executor: Executor, before: number): Promise<void> {
  await executor.deleteFrom('failure_windows').where('started_at', '<=', before).execute();
}
