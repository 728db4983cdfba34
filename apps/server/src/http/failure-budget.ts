import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { isCountedFailure } from '../errors.js';
import type { FailureBudget } from '../modules/auth/failure-budget.js';

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
