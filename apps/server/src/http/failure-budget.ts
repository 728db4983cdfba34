import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isCountedFailure, TooManyRequestsError } from '../errors.js';
import {
  deleteWindowsBefore,
  releaseAttempt,
  reserveAttempt,
  windowStart,
  type Reservation,
} from '../modules/auth/failure-window-repository.js';

/**
 * Guessing is throttled per client address (product.md §3): check-code, the invite check,
 * exchange, enroll and accept share one budget of failures a minute. Past it those calls answer
 * 429 with Retry-After until the minute is over; other addresses are unaffected.
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

export const FAILURE_WINDOW_MS = 60_000;

/** How a route spends the budget; `true` means only errors marked by countsAsFailure count. */
export interface FailureBudgetRule {
  /** An answer that counts as a failed guess although it is a 200 (a check answering false). */
  failedAnswer?(answer: unknown): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route spends its caller's failure budget (see registerFailureBudget). */
    failureBudget?: true | FailureBudgetRule;
  }
}

/** The budget in the `failure_windows` table, shared by every instance on the database. */
export class DatabaseFailureBudget implements FailureBudget {
  private reserved = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly failuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(address: string): Promise<Reservation> {
    const now = this.now();
    const reservation = await reserveAttempt(this.db, {
      address,
      now,
      windowMs: FAILURE_WINDOW_MS,
      limit: this.failuresPerMinute,
    });
    if (reservation === undefined) {
      const startedAt = (await windowStart(this.db, address)) ?? now;
      throw new TooManyRequestsError((startedAt + FAILURE_WINDOW_MS - now) / 1000);
    }
    this.reserved += 1;
    // Now and then, forget finished windows so the table follows the recent offenders.
    if (this.reserved % 256 === 0) await deleteWindowsBefore(this.db, now - FAILURE_WINDOW_MS);
    return reservation;
  }

  release(reservation: Reservation): Promise<void> {
    return releaseAttempt(this.db, reservation);
  }
}

/**
 * Runs `work` on one reserved attempt of `address`: 429 first when none is left; the attempt
 * stays spent when `work` throws an error marked by countsAsFailure or answers what `rule` calls
 * a failure, and is given back otherwise. The reservation and its release are written outside
 * `work`'s transaction, so a rolled-back guess still counts.
 */
export async function spendingBudget<T>(
  budget: FailureBudget,
  address: string,
  work: () => Promise<T>,
  rule: FailureBudgetRule = {},
): Promise<T> {
  const reservation = await budget.reserve(address);
  let failed = true;
  try {
    const answer = await work();
    failed = rule.failedAnswer?.(answer) ?? false;
    return answer;
  } catch (error) {
    failed = isCountedFailure(error);
    throw error;
  } finally {
    if (!failed) await budget.release(reservation);
  }
}

/**
 * Routes declare `config.failureBudget`; their handler then runs within the caller's budget
 * (spendingBudget), after the access check. No service repeats the rule.
 */
export function registerFailureBudget(app: FastifyInstance, budget: FailureBudget): void {
  app.addHook('onRoute', (route) => {
    const declared = route.config?.failureBudget;
    if (declared === undefined) return;
    const rule = declared === true ? {} : declared;
    const handler = route.handler;
    const guarded: RouteHandlerMethod = function (request, reply) {
      return spendingBudget(
        budget,
        request.ip,
        () => Promise.resolve(handler.call(this, request, reply)),
        rule,
      );
    };
    route.handler = guarded;
  });
}
