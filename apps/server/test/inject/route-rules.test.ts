import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import type { Portal } from '../../src/portal.js';
import { openTestPortal, type OpenedTestPortal } from '../support/inject-portal.js';

// What every route gets from being declared (issue 13): the portal refuses to start with an
// /api route that declares no access or no 200 response schema, and the request log writes the
// path from the matched route, never a code, however the URL was spelled.

let opened: OpenedTestPortal;
let portal: Portal;

beforeAll(async () => {
  opened = await openTestPortal({ env: { PORTAL_LOG_LEVEL: 'info' }, version: '0.0.0' });
  portal = opened.portal;
});

afterAll(() => opened.destroy());

const answer = z.object({ ok: z.boolean() });
const handler = () => Promise.resolve({ ok: true });

describe('an /api route without its declarations', () => {
  /** Builds the app, lets `add` register routes, and gets it ready as start-up does. */
  async function startWith(add: (app: FastifyInstance) => void): Promise<void> {
    const app = await buildApp(portal, { logger: false });
    try {
      add(app);
      await app.ready();
    } finally {
      await app.close().catch(() => undefined);
    }
  }

  it('stops the portal when it declares no access, naming the route', async () => {
    await expect(
      startWith((app) =>
        app.post('/api/v1/test/undeclared', { schema: { response: { 200: answer } } }, handler),
      ),
    ).rejects.toThrow(/POST \/api\/v1\/test\/undeclared: every \/api route declares its access/);
  });

  it('stops the portal when it declares no 200 response schema, naming the route', async () => {
    await expect(
      startWith((app) =>
        app.get('/api/v1/test/unanswered', { config: { access: 'member' } }, handler),
      ),
    ).rejects.toThrow(
      /GET \/api\/v1\/test\/unanswered: every \/api route declares its 200 response/,
    );
  });

  it('stops the portal on an access level that does not exist', async () => {
    const config = JSON.parse('{"access":"admins"}') as { access: 'admin' };
    await expect(
      startWith((app) =>
        app.get('/api/v1/test/typo', { config, schema: { response: { 200: answer } } }, handler),
      ),
    ).rejects.toThrow(/GET \/api\/v1\/test\/typo: every \/api route declares its access/);
  });

  it('stops the portal when a call that changes state takes the sign-in check for admin', async () => {
    await expect(
      startWith((app) =>
        app.post(
          '/api/v1/test/admin-by-token',
          { config: { access: 'admin-check' }, schema: { response: { 200: answer } } },
          handler,
        ),
      ),
    ).rejects.toThrow(/POST \/api\/v1\/test\/admin-by-token: admin-check is for the sign-in check/);
  });

  it('stops the portal when a route mints without the key rule, or has the rule off member', async () => {
    const schema = { response: { 200: answer } };
    await expect(
      startWith((app) =>
        app.get(
          '/api/v1/test/mint',
          { config: { access: 'member', mints: true }, schema },
          handler,
        ),
      ),
    ).rejects.toThrow(/GET \/api\/v1\/test\/mint: a route that mints hands out a key/);
    await expect(
      startWith((app) =>
        app.get(
          '/api/v1/test/key',
          { config: { access: 'any', handsOutKey: true }, schema },
          handler,
        ),
      ),
    ).rejects.toThrow(/GET \/api\/v1\/test\/key: handsOutKey is a rule of member routes/);
  });

  it('stops the portal for a route a plugin registers', async () => {
    await expect(
      startWith(
        (app) =>
          void app.register((plugin) => {
            plugin.get('/api/v1/test/from-plugin', handler);
            return Promise.resolve();
          }),
      ),
    ).rejects.toThrow(/GET \/api\/v1\/test\/from-plugin: every \/api route declares its access/);
  });

  it('starts with routes outside /api left undeclared, and with every portal route', async () => {
    await expect(startWith((app) => app.get('/not-api/thing', handler))).resolves.toBeUndefined();
  });
});

describe('the request log and malformed URLs', () => {
  let app: FastifyInstance;
  const lines: string[] = [];

  beforeAll(async () => {
    app = await buildApp(portal, { logStream: { write: (line) => lines.push(line) } });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
  });

  /** The request lines logged for the calls `act` makes. */
  async function logged(act: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    lines.length = 0;
    await act();
    return lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request');
  }

  it('never logs an invite code, however the path spells it', async () => {
    const urls = [
      '/api/v1/enrollment/invitecode/ABCD2345',
      '/api/v1/enrollment/%69nvitecode/ABCD2345',
      '/api/v1/enrollment/invitecode/%41BCD2345',
      '/api/v1/enrollment/invitecode/ABCD2345/',
      '/api/v1/enrollment/invitecode/ABCD2345/more',
      '/api/v1/enrollment/invitecode?invitecode=ABCD2345',
    ];
    for (const url of urls) {
      const entries = await logged(() =>
        app.inject({ method: url.includes('?') ? 'GET' : 'DELETE', url }),
      );
      expect(entries, url).toHaveLength(1);
      expect(JSON.stringify(entries[0]), url).not.toMatch(/ABCD2345/i);
    }
    const [entry] = await logged(() =>
      app.inject({ method: 'DELETE', url: '/api/v1/enrollment/%69nvitecode/ABCD2345' }),
    );
    expect(entry).toMatchObject({
      url: '/api/v1/enrollment/invitecode/[redacted]',
      route: '/api/v1/enrollment/invitecode/:code',
    });
  });

  it('answers an undecodable or over-long path with 400 without repeating the URL', async () => {
    for (const url of [
      `/api/v1/people/${'A'.repeat(300)}SECRET`,
      '/api/v1/people/%E0%A4%ASECRET',
      '/api/v1/enrollment/invitecode/%E0SECRET',
    ]) {
      const entries = await logged(async () => {
        const response = await app.inject({ method: 'DELETE', url });
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toEqual({ detail: 'Malformed or over-long URL' });
        expect(response.body).not.toContain('SECRET');
      });
      expect(JSON.stringify(entries)).not.toContain('SECRET');
    }
  });
});
