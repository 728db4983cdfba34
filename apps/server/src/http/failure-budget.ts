import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { isCountedFailure } from '../errors.js';
import type { FailureBudget, GuessCaller } from '../modules/auth/failure-budget.js';

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

/**
 * Runs `work` on one reserved attempt of `address`: 429 first when none is left; the attempt
 * stays spent when `work` throws an error marked by countsAsFailure or answers what `rule` calls
 * a failure, and is given back otherwise. The reservation and its release are written outside
 * `work`'s transaction, so a rolled-back guess still counts. `onReserved` gets a way to give the
 * attempt back early, for work that answers before it returns; the attempt is settled once.
 */
export async function spendingBudget<T>(
  budget: FailureBudget,
  address: string,
  work: () => Promise<T>,
  rule: FailureBudgetRule = {},
  onReserved?: (giveBack: () => Promise<void>) => void,
  caller: GuessCaller = 'stranger',
): Promise<T> {
  const reservation = await budget.reserve(address, caller);
  let settled = false;
  const settle = async (failed: boolean) => {
    if (settled) return;
    settled = true;
    if (!failed) await budget.release(reservation);
  };
  onReserved?.(() => settle(false));
  let failed = true;
  try {
    const answer = await work();
    failed = rule.failedAnswer?.(answer) ?? false;
    return answer;
  } catch (error) {
    failed = isCountedFailure(error);
    throw error;
  } finally {
    await settle(failed);
  }
}

/** Access levels (modules/auth/access.ts) that admit only a valid member's key or token. */
const MEMBER_ACCESS = new Set(['member', 'admin-check', 'admin']);

/**
 * Routes declare `config.failureBudget`; their handler then runs within the caller's budget
 * (spendingBudget), after the access check. No service repeats the rule.
 *
 * The attempt is settled before the answer leaves. A handler that sends its answer itself
 * (`reply.send`, as the TAK enrollment face's do) returns only after it is sent, so its attempt
 * is given back in `onSend`: a client asking again at once never finds its own successful call
 * still counted against it.
 */
export function registerFailureBudget(app: FastifyInstance, budget: FailureBudget): void {
  const giveBackOnSend = new WeakMap<FastifyRequest, () => Promise<void>>();
  app.addHook('onSend', async (request) => {
    await giveBackOnSend.get(request)?.();
  });
  app.addHook('onRoute', (route) => {
    const declared = route.config?.failureBudget;
    if (declared === undefined) return;
    const rule = declared === true ? {} : declared;
    // The guess ceiling slows strangers only: on these, the access check has found a valid key.
    const caller: GuessCaller = MEMBER_ACCESS.has(String(route.config?.access))
      ? 'member'
      : 'stranger';
    const handler = route.handler;
    const guarded: RouteHandlerMethod = function (request, reply) {
      return spendingBudget(
        budget,
        request.ip,
        () => Promise.resolve(handler.call(this, request, reply)),
        rule,
        (giveBack) => {
          // An error is settled (kept or given back) before the error handler sends it; a
          // sent answer the rule must read is returned, not sent, by its handler.
          if (rule.failedAnswer === undefined) giveBackOnSend.set(request, giveBack);
        },
        caller,
      );
    };
    route.handler = guarded;
  });
}
