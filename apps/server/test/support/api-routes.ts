import { apiPaths, takPaths } from '@callsign/contract';
import { buildApp } from '../../src/app.js';
import type { ApiRoute } from '../../src/modules/auth/access.js';
import { openTestPortal } from './inject-portal.js';

/**
 * Every /api route the portal registers, with its declaration (access, mints, failure budget,
 * schemas), read from an app built once on a throw-away data directory. Tests that must cover
 * every call take their list from here, so a new route is covered without anyone listing it.
 */
export async function registeredApiRoutes(): Promise<readonly ApiRoute[]> {
  const opened = await openTestPortal({ version: '0.0.0' });
  try {
    const app = await buildApp(opened.portal, { logger: false });
    await app.close();
    return app.apiRoutes;
  } finally {
    await opened.destroy();
  }
}

/**
 * A route's path with its parameters filled in: `value` for each, or the value it gives for each
 * parameter's name.
 */
export function pathOf(route: ApiRoute, value: string | ((name: string) => string)): string {
  return route.url.replace(/:([A-Za-z_]+)/g, (_match, name: string) =>
    encodeURIComponent(typeof value === 'string' ? value : value(name)),
  );
}

/**
 * The calls that hand a bearer token a key or what turns into one (`config.handsOutKey`,
 * docs/api.md), as `[method, path]` for the member `callsign`.
 */
export function keyCallsFor(callsign: string) {
  return [
    ['GET', apiPaths.keyDownload(callsign)],
    ['GET', apiPaths.instructions],
    ['POST', takPaths.enrollmentToken],
    ['GET', takPaths.trustPackage],
  ] as const;
}
