import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPortal } from '../../src/portal.js';
import type { ApiRoute } from '../../src/modules/auth/access.js';

/**
 * Every /api route the portal registers, with its declaration (access, mints, failure budget,
 * schemas), read from an app built once on a throw-away data directory. Tests that must cover
 * every call take their list from here, so a new route is covered without anyone listing it.
 */
export async function registeredApiRoutes(): Promise<readonly ApiRoute[]> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-routes-'));
  const portal = await openPortal(
    loadConfig({ PORTAL_DATA_DIR: path.join(workDir, 'data') }, { version: '0.0.0' }),
    { migrate: true },
  );
  try {
    const app = await buildApp(portal, { logger: false });
    await app.close();
    return app.apiRoutes;
  } finally {
    await portal.close();
    await rm(workDir, { recursive: true, force: true });
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
