import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const contractSource = fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url));

/**
 * `npm run test:fast` sets PORTAL_TEST_TIER=fast: of the server, only the unit tests beside the
 * code and the inject tier (test/inject: the app called in-process), on SQLite. The TLS tier
 * (test/*.test.ts: real listeners, curl, openssl s_client, the built CLI), the production tests
 * (nginx, PostgreSQL) and the browser journeys run in the full gate, `npm test`.
 */
const fastTier = process.env.PORTAL_TEST_TIER === 'fast';
const serverTests = fastTier
  ? ['apps/server/src/**/*.test.ts', 'apps/server/test/inject/**/*.test.ts']
  : ['apps/server/src/**/*.test.ts', 'apps/server/test/**/*.test.ts'];
/** The fast tier runs on SQLite alone, even in a shell where a PostgreSQL URL is exported. */
const serverEnv: Record<string, string> = fastTier
  ? { PORTAL_TEST_POSTGRES_URL: '', PORTAL_REQUIRE_POSTGRES: '' }
  : {};

export default defineConfig({
  resolve: { alias: { '@callsign/contract': contractSource } },
  test: {
    // The fast tier is a developer waiting at the keyboard: every core (Vitest's default leaves
    // one free, which on two cores halves the speed). The full gate keeps the default: its
    // tests start real servers, nginx and PostgreSQL beside the workers.
    //
    // It also shares modules between the files a worker runs (isolate: false): loading React,
    // jsdom's globals, Fastify and the CA libraries once per worker instead of once per file is
    // most of its speed. A test that leaks state into the next file therefore fails here first;
    // the full gate runs every file in a fresh module graph.
    ...(fastTier ? { maxWorkers: os.availableParallelism(), isolate: false } : {}),
    projects: [
      {
        // The repository's own tooling: lint rules and the docs held against the code.
        extends: true,
        test: {
          name: 'repo',
          include: ['eslint-rules/**/*.test.js', 'docs/**/*.test.js'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['packages/contract/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: serverTests,
          env: serverEnv,
          environment: 'node',
          setupFiles: ['apps/server/test/setup.ts'],
          globalSetup: ['apps/server/test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          // One portal and its first admin's key for the files that need no configuration of
          // their own; it runs the build (`npm run build` first).
          globalSetup: ['e2e/support/global-setup.ts'],
          // A page renders after its load and then fetches its data: an `expect.poll` on what it
          // shows waits as long as Playwright waits for a locator (Vitest's default is 1 s).
          expect: { poll: { timeout: 30_000 } },
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One browser and one portal at a time: the machine has two cores.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['apps/web/src/test/setup.ts'],
        },
      },
    ],
  },
});
