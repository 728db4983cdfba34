import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { TooManyRequestsError } from '../errors.js';

/**
 * Guessing is throttled per client address (product.md §3): check-code, the invite check,
 * exchange, enroll and accept share one budget of failures a minute. Past it those calls answer
 * 429 with Retry-After until the minute is over; other addresses are unaffected.
 *
 * The service keeps the count in the database (DatabaseFailureBudget), so that several instances
 * on one PostgreSQL share it; InMemoryFailureBudget is the same rule within one process.
 */
export interface FailureBudget {
  /** Throws 429 when `address` has spent its budget in the current window. */
  assertAllowed(address: string): Promise<void>;
  /**
   * Counts one failed attempt (a false check, an unknown code, a taken callsign...). Never call it
   * inside a database transaction: it writes on its own (see spendingBudget).
   */
  recordFailure(address: string): Promise<void>;
}

export const FAILURE_WINDOW_MS = 60_000;

/** The 429 of a spent budget, with the seconds until the window ends. */
function spent(startedAt: number, now: number): TooManyRequestsError {
  return new TooManyRequestsError((startedAt + FAILURE_WINDOW_MS - now) / 1000);
}

export class InMemoryFailureBudget implements FailureBudget {
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();

  constructor(
    private readonly failuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  assertAllowed(address: string): Promise<void> {
    const window = this.current(address);
    if (window !== undefined && window.failures >= this.failuresPerMinute) {
      return Promise.reject(spent(window.startedAt, this.now()));
    }
    return Promise.resolve();
  }

  recordFailure(address: string): Promise<void> {
    const window = this.current(address);
    if (window === undefined) {
      this.windows.set(address, { startedAt: this.now(), failures: 1 });
      this.sweep();
    } else {
      window.failures += 1;
    }
    return Promise.resolve();
  }

  private current(address: string) {
    const window = this.windows.get(address);
    if (window === undefined) return undefined;
    if (this.now() - window.startedAt >= FAILURE_WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Forgets finished windows so memory follows the number of recent offenders. */
  private sweep(): void {
    if (this.windows.size < 1024) return;
    const now = this.now();
    for (const [address, window] of this.windows) {
      if (now - window.startedAt >= FAILURE_WINDOW_MS) this.windows.delete(address);
    }
  }
}

/**
 * The budget in the `failure_windows` table, shared by every instance on the database. Counting
 * is one upsert statement (atomic on SQLite and PostgreSQL), so failures counted at the same time
 * through several instances all count.
 */
export class DatabaseFailureBudget implements FailureBudget {
  private recorded = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly failuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async assertAllowed(address: string): Promise<void> {
    const now = this.now();
    const window = await this.db
      .selectFrom('failure_windows')
      .select(['started_at', 'failures'])
      .where('address', '=', address)
      .executeTakeFirst();
    if (
      window !== undefined &&
      now - window.started_at < FAILURE_WINDOW_MS &&
      window.failures >= this.failuresPerMinute
    ) {
      throw spent(window.started_at, now);
    }
  }

  async recordFailure(address: string): Promise<void> {
    const now = this.now();
    const over = now - FAILURE_WINDOW_MS;
    await this.db
      .insertInto('failure_windows')
      .values({ address, started_at: now, failures: 1 })
      .onConflict((conflict) =>
        conflict.column('address').doUpdateSet({
          // Every expression sees the row as it was: a finished window starts again at 1.
          failures: sql<number>`case when failure_windows.started_at <= ${over} then 1 else failure_windows.failures + 1 end`,
          started_at: sql<number>`case when failure_windows.started_at <= ${over} then ${now} else failure_windows.started_at end`,
        }),
      )
      .execute();
    this.recorded += 1;
    // Now and then, forget finished windows so the table follows the recent offenders.
    if (this.recorded % 256 === 0) {
      await this.db.deleteFrom('failure_windows').where('started_at', '<=', over).execute();
    }
  }
}

const countedFailures = new WeakSet<object>();

/** Marks a refusal as a failed guess: spendingBudget counts it once its transaction is over. */
export function countsAsFailure<E extends Error>(error: E): E {
  countedFailures.add(error);
  return error;
}

/**
 * Runs `work` for `address` within its budget: 429 first when it is spent, and a failure counted
 * when `work` throws an error marked by countsAsFailure. The count is written after `work` and
 * its transaction have ended, so it is kept even though that transaction rolls back (and never
 * waits for a second connection while holding one).
 */
export async function spendingBudget<T>(
  budget: FailureBudget,
  address: string,
  work: () => Promise<T>,
): Promise<T> {
  await budget.assertAllowed(address);
  try {
    return await work();
  } catch (error) {
    if (typeof error === 'object' && error !== null && countedFailures.has(error)) {
      await budget.recordFailure(address);
    }
    throw error;
  }
}
