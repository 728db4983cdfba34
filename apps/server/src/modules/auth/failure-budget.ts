import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { TooManyRequestsError } from '../../errors.js';
import {
  deleteWindowsBefore,
  releaseAttempt,
  reserveAttempt,
  windowOf,
  windowStart,
  type Reservation as WindowReservation,
} from './failure-window-repository.js';
import { guesserOf } from './guesser.js';

/** One reserved attempt: the guesser's, and the deployment's when the ceiling counted it. */
export interface Reservation {
  own: WindowReservation;
  shared?: WindowReservation;
}

/**
 * Guessing is throttled per guesser (docs/api.md): an IPv4 address, or an IPv6 /64
 * (`guesserOf`). check-code, the invite check, exchange, enroll, accept and the TAK enrollment
 * face share one budget of failures a window (default 120 in 10 minutes: a roomful behind one
 * NAT each mistyping twice stays within it, guessing a code does not). Past it those calls
 * answer 429 with Retry-After until the window is over; other guessers are unaffected.
 *
 * Above that, the guess ceiling: at most `ceilingPerMinute` failed guesses a minute across the
 * whole deployment, from callers without a session ('stranger'); past it every stranger's guess
 * answers 429 until the minute is over, so guessing from many addresses gains nothing. A member
 * whose key or token the route already checked ('member') never meets it.
 *
 * An attempt is reserved before it is evaluated, and given back when it turns out not to be a
 * failed guess. So at most the budget is evaluated per guesser and window, however many guesses
 * arrive at once and through however many instances (the count is in the database).
 *
 * While the ceiling is reached, a stranger's guess is refused after one read of the deployment's
 * row and writes nothing: a flood of refused guesses would otherwise reserve and give back two
 * attempts each, which on SQLite's one connection slows every member (bench/RESULTS.md,
 * section 17).
 */
export interface FailureBudget {
  /** Reserves one attempt for the address; throws 429 (with Retry-After) when none is left. */
  reserve(address: string, caller?: GuessCaller): Promise<Reservation>;
  /** Gives back an attempt that was not a failed guess. */
  release(reservation: Reservation): Promise<void>;
}

/** 'member': the route established a valid key or session before the guess (an approval). */
export type GuessCaller = 'stranger' | 'member';

/** How many failed guesses one guesser may make in how long, and the deployment a minute. */
export interface FailureBudgetSize {
  failures: number;
  windowMs: number;
  /** The guess ceiling (PORTAL_GUESS_CEILING_PER_MINUTE); none when undefined. */
  ceilingPerMinute?: number;
}

const MINUTE = 60_000;
/** The deployment's row in `failure_windows`: no client address is ever written so. */
const DEPLOYMENT = '*';

/** The budget in the `failure_windows` table, shared by every instance on the database. */
export class DatabaseFailureBudget implements FailureBudget {
  private reserved = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly size: FailureBudgetSize,
    private readonly now: () => number = Date.now,
    /** Told each time the ceiling refuses a guess (the metric). */
    private readonly onCeiling: () => void = () => undefined,
  ) {}

  async reserve(address: string, caller: GuessCaller = 'stranger'): Promise<Reservation> {
    const now = this.now();
    const guesser = guesserOf(address);
    const { windowMs, failures, ceilingPerMinute } = this.size;
    if (caller === 'stranger' && ceilingPerMinute !== undefined) {
      await this.refuseWhileCeilingReached(now, ceilingPerMinute);
    }
    const own = await this.reserveIn(guesser, now, windowMs, failures);
    this.reserved += 1;
    // Now and then, forget finished windows so the table follows the recent offenders.
    if (this.reserved % 256 === 0) {
      await deleteWindowsBefore(this.db, now - Math.max(windowMs, MINUTE));
    }
    if (caller === 'member' || ceilingPerMinute === undefined) return { own };
    try {
      return { own, shared: await this.reserveIn(DEPLOYMENT, now, MINUTE, ceilingPerMinute) };
    } catch (error) {
      await releaseAttempt(this.db, own);
      this.onCeiling();
      throw error;
    }
  }

  async release(reservation: Reservation): Promise<void> {
    await releaseAttempt(this.db, reservation.own);
    if (reservation.shared !== undefined) await releaseAttempt(this.db, reservation.shared);
  }

  /** Throws the ceiling's 429 when this minute's guesses are spent already, writing nothing. */
  private async refuseWhileCeilingReached(now: number, ceilingPerMinute: number): Promise<void> {
    const minute = await windowOf(this.db, DEPLOYMENT);
    if (minute === undefined || minute.startedAt + MINUTE <= now) return;
    if (minute.failures < ceilingPerMinute) return;
    this.onCeiling();
    throw new TooManyRequestsError((minute.startedAt + MINUTE - now) / 1000);
  }

  private async reserveIn(
    address: string,
    now: number,
    windowMs: number,
    limit: number,
  ): Promise<WindowReservation> {
    const reservation = await reserveAttempt(this.db, { address, now, windowMs, limit });
    if (reservation !== undefined) return reservation;
    const startedAt = (await windowStart(this.db, address)) ?? now;
    throw new TooManyRequestsError((startedAt + windowMs - now) / 1000);
  }
}
