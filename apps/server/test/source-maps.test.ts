import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { seedTestCa } from '../src/ca/test-ca.testing.js';
import { loadConfig } from '../src/config.js';
import { openPortal, type Portal } from '../src/portal.js';
import { run } from './support/processes.js';

const WEB_APP = fileURLToPath(new URL('../../web/', import.meta.url));
const VITE = path.join(
  path.dirname(createRequire(WEB_APP).resolve('vite/package.json')),
  'bin/vite.js',
);

let workDir: string;
let webDir: string;
let portal: Portal;
let app: FastifyInstance;

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

// The production build of the web app, as `npm run build` makes it, served by the portal.
beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-source-maps-'));
  webDir = path.join(workDir, 'web');
  const build = await run(
    process.execPath,
    [VITE, 'build', '--outDir', webDir, '--emptyOutDir', '--logLevel', 'error'],
    // As `npm run build` runs it (under vitest NODE_ENV is 'test': React's development build).
    { cwd: WEB_APP, timeout: 120_000, env: { ...process.env, NODE_ENV: 'production' } },
  );
  expect(build.code, build.stderr).toBe(0);
  const config = loadConfig(
    { PORTAL_DATA_DIR: path.join(workDir, 'data'), PORTAL_WEB_DIR: webDir },
    { version: '1.2.3' },
  );
  await seedTestCa(config.caDir, config.host);
  portal = await openPortal(config, { migrate: true });
  app = await buildApp(portal, { logger: false });
  await app.ready();
}, 180_000);

afterAll(async () => {
  await app.close();
  await portal.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('source maps of the web app', () => {
  it('are not served: the entry script has no map to fetch and names none', async () => {
    const page = await app.inject({ method: 'GET', url: '/login' });
    const entry = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(page.body);
    expect(entry, page.body).not.toBeNull();
    const script = entry?.[1] ?? '';

    const served = await app.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(served.statusCode).toBe(200);
    expect(served.body.length).toBeGreaterThan(1000);
    expect(served.body.includes('sourceMappingURL'), `${script} names its map`).toBe(false);

    const map = await app.inject({ method: 'GET', url: `${script}.map` });
    expect(map.statusCode).toBe(404);
  });

  it('no file the portal serves is a map or points to one', async () => {
    const files = await filesUnder(webDir);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.(js|css)$/.test(name))) {
      const text = await readFile(path.join(webDir, file), 'utf8');
      expect(text.includes('sourceMappingURL'), `${file} names its map`).toBe(false);
    }
  });

  it('are kept as build artefacts beside the build, one per script', async () => {
    const maps = await filesUnder(`${webDir}-sourcemaps`);
    const scripts = (await filesUnder(webDir)).filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(5);
    expect(maps.sort()).toEqual(scripts.map((file) => `${file}.map`).sort());
  });
});
