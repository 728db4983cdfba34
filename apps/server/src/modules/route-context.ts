import type { Portal } from '../portal.js';

/** What every module's routes are built with. */
export interface RouteContext {
  portal: Portal;
  now: () => Date;
}
