import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { TooManyRequestsError } from '../../errors.js';
import {
  deleteWindowsBefore,
  releaseAttempt,
  reserveAttempt,
  windowStart,
  type Reservation,
} from './failure-window-repository.js';

export type { Reservation };

/**
 * Guessing is throttled per client address (docs/api.md): check-code, the invite check,
 * exchange, enroll, accept and the TAK enrollment face share one budget of failures a window
 * (default 120 in 10 minutes: a roomful behind one NAT each mistyping twice stays within it,
 * guessing a code does not). Past it those calls answer 429 with Retry-After until the window is
 * over; other addresses are unaffected.
 *
 * An attempt is reserved before it is evaluated, and given back when it turns out not to be a
 * failed guess. So at most the budget is evaluated per address and window, however many guesses
 * arrive at once and through however many instances (the count is in the database).
 */
export interface FailureBudget {
  /** Reserves one attempt for the address; throws 429 (with Retry-After) when none is left. */
  reserve(address: string): Promise<Reservation>;
  /** Gives back an attempt that was not a failed guess. */
  release(reservation: Reservation): Promise<void>;
}

/** How many failed guesses one address may make in how long. */
export interface FailureBudgetSize {
  failures: number;
  windowMs: number;
}

/** The budget in the `failure_windows` table, shared by every instance on the database. */
export class DatabaseFailureBudget implements FailureBudget {
  private reserved = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly size: FailureBudgetSize,
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(address: string): Promise<Reservation> {
    const now = this.now();
    const reservation = await reserveAttempt(this.db, {
      address,
      now,
      windowMs: this.size.windowMs,
      limit: this.size.failures,
    });
    if (reservation === undefined) {
      const startedAt = (await windowStart(this.db, address)) ?? now;
      throw new TooManyRequestsError((startedAt + this.size.windowMs - now) / 1000);
    }
    this.reserved += 1;
    // Now and then, forget finished windows so the table follows the recent offenders.
    if (this.reserved % 256 === 0) await deleteWindowsBefore(this.db, now - this.size.windowMs);
    return reservation;
  }

  release(reservation: Reservation): Promise<void> {
    return releaseAttempt(this.db, reservation);
  }
}
