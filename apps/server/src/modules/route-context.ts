import type { Portal } from '../context.js';

/** What every module's routes are built with. */
export interface RouteContext {
  portal: Portal;
  now: () => Date;
}
