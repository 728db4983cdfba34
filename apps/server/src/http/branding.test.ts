import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANDING_ROOT, ConfigError, loadConfig } from '../config.js';
import { registerErrorHandler } from './error-handler.js';
import { registerStaticSite } from './static-site.js';

describe('PORTAL_BRANDING', () => {
  it('defaults to the neutral set shipped in apps/server/branding', () => {
    const config = loadConfig({}, { cwd: '/srv/portal' });
    expect(config.branding).toBe('neutral');
    expect(config.brandingDir).toBe(path.join(BRANDING_ROOT, 'neutral'));
  });

  it('names the variable when the set does not exist or the name is not a folder name', () => {
    expect(() => loadConfig({ PORTAL_BRANDING: 'nosuchset' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORTAL_BRANDING: 'nosuchset' })).toThrow(
      /PORTAL_BRANDING: no branding set "nosuchset"/,
    );
    expect(() => loadConfig({ PORTAL_BRANDING: '../etc' })).toThrow(
      /PORTAL_BRANDING: must be the name/,
    );
  });
});

describe('/locales/{lng}/dynamic.json', () => {
  let app: FastifyInstance;
  let webDir: string;

  beforeAll(async () => {
    webDir = await mkdtemp(path.join(os.tmpdir(), 'portal-branding-'));
    app = Fastify({ logger: false });
    registerErrorHandler(app);
    await registerStaticSite(app, webDir, { brandingDir: path.join(BRANDING_ROOT, 'neutral') });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await rm(webDir, { recursive: true, force: true });
  });

  it('serves the branding set in English and Finnish', async () => {
    for (const lng of ['en', 'fi']) {
      const response = await app.inject({ method: 'GET', url: `/locales/${lng}/dynamic.json` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['cache-control']).toBe('no-cache');
      const body = response.json<{ deployment_name: string; privacy: { title: string } }>();
      expect(body.deployment_name).not.toBe('');
      expect(body.privacy.title).not.toBe('');
    }
  });

  it('answers 404 for a language the set lacks and for anything that is not a language code', async () => {
    for (const url of [
      '/locales/sv/dynamic.json',
      '/locales/..%2F..%2Fconfig/dynamic.json',
      '/locales/english/dynamic.json',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
    }
  });
});
