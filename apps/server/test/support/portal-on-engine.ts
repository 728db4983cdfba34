import { afterAll, beforeAll } from 'vitest';
import type { ScratchDatabase, TestEngine } from '../../src/db/test-engines.testing.js';

/** The environment that points a portal at a scratch database (SQLite when it is empty). */
export type DatabaseEnv = Record<'DATABASE_URL', string>;

export function databaseEnvOf(scratch: ScratchDatabase): DatabaseEnv {
  return { DATABASE_URL: scratch.options.databaseUrl ?? '' };
}

/**
 * The portal a suite runs against, one per engine: call inside `describe.each(testEngines())`.
 * Before the suite's tests, `start` gets the environment of a fresh scratch database of that
 * engine and starts the portal (keeping it where the tests find it); after them the portal it
 * returned is destroyed and the database dropped.
 *
 *   let portal: TestPortal;
 *   portalOnScratchDatabase(engine, async (env) => (portal = await startTestPortal({ env })));
 */
export function portalOnScratchDatabase(
  engine: TestEngine,
  start: (env: DatabaseEnv) => Promise<{ destroy(): Promise<void> }>,
): void {
  let scratch: ScratchDatabase | undefined;
  let portal: { destroy(): Promise<void> } | undefined;
  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    portal = await start(databaseEnvOf(scratch));
  });
  afterAll(async () => {
    // Undefined when beforeAll failed half-way.
    await portal?.destroy();
    await scratch?.drop();
  });
}
