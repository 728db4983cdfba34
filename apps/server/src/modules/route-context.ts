import type { Portal } from '../context.js';
import type { FailureBudget } from '../http/failure-budget.js';
import type { Authenticator } from './auth/identity.js';

/** What every module's routes are built with. */
export interface RouteContext {
  portal: Portal;
  auth: Authenticator;
  failures: FailureBudget;
  now: () => Date;
}
