import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { seedTestCa } from '../../src/ca/test-ca.testing.js';
import { openPortal, type Portal } from '../../src/portal.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

const APP_JS = 'console.log("app");';

let workDir: string;
let portal: Portal;
let app: FastifyInstance;

const INDEX_HTML =
  '<!doctype html><html><head><script type="module" src="/assets/app-3f2a1b.js"></script></head><body><div id="root"></div></body></html>';

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-serving-'));
  const webDir = path.join(workDir, 'web');
  await mkdir(path.join(webDir, 'assets'), { recursive: true });
  await writeFile(path.join(webDir, 'index.html'), INDEX_HTML);
  await writeFile(path.join(webDir, 'assets', 'app-3f2a1b.js'), APP_JS);
  // As the web build writes them: compressed copies beside the asset.
  await writeFile(path.join(webDir, 'assets', 'app-3f2a1b.js.br'), brotliCompressSync(APP_JS));
  await writeFile(path.join(webDir, 'assets', 'app-3f2a1b.js.gz'), gzipSync(APP_JS));
  await writeFile(path.join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const config = loadConfig(
    {
      PORTAL_DATA_DIR: path.join(workDir, 'data'),
      PORTAL_WEB_DIR: webDir,
      PORTAL_DEPLOYMENT: 'bravo',
    },
    { version: '1.2.3' },
  );
  await seedTestCa(config.caDir, config.host);
  portal = await openPortal(config, { migrate: true });
  app = await buildApp(portal, { logger: false });
  // A stand-in for the POST calls of later issues, to see the body limit and validation at work.
  const echo = z.strictObject({ callsign: z.string().regex(/^[A-Za-z0-9]{3,30}$/) });
  app.post(
    '/api/v1/test/echo',
    { config: { access: 'anonymous' }, schema: { body: echo, response: { 200: echo } } },
    (request) => Promise.resolve(request.body),
  );
  app.post(
    '/api/v1/test/no-body',
    {
      config: { access: 'anonymous' },
      schema: { response: { 200: z.object({ body: z.null() }) } },
    },
    (request) => Promise.resolve({ body: request.body ?? null }),
  );
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await portal.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('the health check', () => {
  it('answers with the deployment and version', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/healthcheck' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      healthcheck: 'success',
      dns: 'portal.localhost',
      version: '1.2.3',
      deployment: 'bravo',
    });
  });
});

describe('the web app', () => {
  it('serves index.html for the app routes, revalidated on every visit', async () => {
    for (const url of [
      '/',
      '/index.html',
      '/login',
      '/login/callsign?x=1',
      '/app/users/Ranger1',
      '/app/admin/user-management/code-list/ABCD2345',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      const withoutNonce = response.body.replace(/\n {4}<meta property="csp-nonce" [^>]+>/, '');
      expect(withoutNonce).toBe(INDEX_HTML);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
    }
  });

  it('caches hashed assets for a year and revalidates other files', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/app-3f2a1b.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('sends the compressed copy the browser accepts, and the plain file to others', async () => {
    const url = '/assets/app-3f2a1b.js';
    const brotli = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(APP_JS);
    const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(APP_JS);
    const plain = await app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(APP_JS);
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers 404 for a missing file and an unknown API path instead of the app', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/missing-123.js' });
    expect(asset.statusCode).toBe(404);
    const api = await app.inject({ method: 'GET', url: '/api/v1/no-such-call' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ detail: 'Not found' });
    const post = await app.inject({ method: 'POST', url: '/login' });
    expect(post.statusCode).toBe(404);
  });
});

describe('the page nonce', () => {
  it('puts a fresh style nonce in the page and in the CSP, never twice the same', async () => {
    const nonces = new Set<string>();
    for (let visit = 0; visit < 3; visit += 1) {
      const response = await app.inject({ method: 'GET', url: '/login' });
      const nonce = /<meta property="csp-nonce" content="([^"]+)" \/>/.exec(response.body)?.[1];
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      const styleSrc = String(response.headers['content-security-policy'])
        .split(';')
        .find((directive) => directive.startsWith('style-src'));
      expect(styleSrc).toBe(`style-src 'self' 'nonce-${nonce ?? ''}'`);
      nonces.add(nonce ?? '');
    }
    expect(nonces.size).toBe(3);
  });
});

describe('security headers', () => {
  it('puts a strict policy on pages and API answers alike', async () => {
    for (const url of ['/login', '/api/v1/healthcheck']) {
      const { headers } = await app.inject({ method: 'GET', url });
      const csp = String(headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(headers['strict-transport-security']).toBe('max-age=31536000');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['referrer-policy']).toBe('no-referrer');
    }
  });
});

describe('HSTS behind the proxy', () => {
  let behind: InjectPortal;
  beforeAll(async () => {
    behind = await openInjectPortal();
  });
  afterAll(() => behind.destroy());

  it('goes only on answers nginx forwards from TLS, not from its port 80 (/ca/ there)', async () => {
    const crl = (proto: string) =>
      behind.app.inject({
        method: 'GET',
        url: '/ca/crl.pem',
        remoteAddress: '127.0.0.1',
        headers: { host: behind.host, 'x-forwarded-proto': proto },
      });
    const plain = await crl('http');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers).not.toHaveProperty('strict-transport-security');
    expect((await crl('https')).headers['strict-transport-security']).toBe('max-age=31536000');
  });
});

describe('request bodies', () => {
  it('refuses a body over 64 KB with 413 and a detail', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ callsign: 'A'.repeat(70 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toHaveProperty('detail');
  });

  it('answers malformed input with 422 and where it went wrong', async () => {
    const badValue = await app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      payload: { callsign: 'no spaces allowed' },
    });
    expect(badValue.statusCode).toBe(422);
    expect(badValue.json()).toMatchObject({ detail: [{ loc: ['body', 'callsign'] }] });
    const unknownField = await app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      payload: { callsign: 'Ranger1', admin: true },
    });
    expect(unknownField.statusCode).toBe(422);
    const notJson = await app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"callsign": ',
    });
    expect(notJson.statusCode).toBe(422);
    expect(notJson.json()).toMatchObject({ detail: [{ type: 'json_invalid' }] });
  });
});

describe('calls without a body', () => {
  it('accept the JSON content type with an empty body, as the web app sends it', async () => {
    for (const payload of ['', '  ']) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/test/no-body',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ body: null });
    }
  });

  it('still refuse an empty body where one is required', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(422);
  });
});

describe('branding', () => {
  it('serves the dynamic translations of the set the configuration names', async () => {
    const brandingDir = path.join(workDir, 'branding-bravo');
    await mkdir(path.join(brandingDir, 'locales', 'en'), { recursive: true });
    await writeFile(
      path.join(brandingDir, 'locales', 'en', 'dynamic.json'),
      JSON.stringify({ deployment_name: 'Bravo Company' }),
    );
    const config = loadConfig(
      {
        PORTAL_DATA_DIR: path.join(workDir, 'data-branding'),
        PORTAL_WEB_DIR: path.join(workDir, 'none'),
      },
      { version: '1.2.3' },
    );
    await seedTestCa(config.caDir, config.host);
    const branded = await openPortal({ ...config, brandingDir }, { migrate: true });
    const brandedApp = await buildApp(branded, { logger: false });
    try {
      const response = await brandedApp.inject({ method: 'GET', url: '/locales/en/dynamic.json' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ deployment_name: 'Bravo Company' });
    } finally {
      await brandedApp.close();
      await branded.close();
    }
  });
});

describe('the database going away', () => {
  it('turns the health check into 503 with a detail', async () => {
    const config = loadConfig(
      { PORTAL_DATA_DIR: path.join(workDir, 'data2'), PORTAL_WEB_DIR: path.join(workDir, 'none') },
      { version: '1.2.3' },
    );
    await seedTestCa(config.caDir, config.host);
    const other = await openPortal(config, { migrate: true });
    const otherApp = await buildApp(other, { logger: false });
    await otherApp.ready();
    await other.database.close();
    const response = await otherApp.inject({ method: 'GET', url: '/api/v1/healthcheck' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ detail: 'The database is unreachable' });
    await otherApp.close();
  });
});
