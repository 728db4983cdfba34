import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, errorResponseSchema, idmConsoleResponseSchema } from '@callsign/contract';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// GET admin/idm-console: the identity-management console link of the admin area (shown on
// manageusers), for admins with their key on the mTLS face only.

describe('GET admin/idm-console with the default console address', () => {
  let portal: InjectPortal;
  let admin: MemberKey;
  let member: MemberKey;

  beforeAll(async () => {
    portal = await openInjectPortal({ env: { PORTAL_IDM_REALM: 'field team' } });
    admin = await portal.addMember('Chief1', { roles: ['admin'] });
    member = await portal.addMember('Scout1');
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('gives an admin with their key the public host, port 9443 and the realm console path', async () => {
    const response = await portal.api('mtls', 'GET', apiPaths.idmConsole, { key: admin });
    expect(response.status, response.text).toBe(200);
    expect(idmConsoleResponseSchema.parse(response.json())).toEqual({
      idm_console_url: `https://${portal.host}:9443/admin/field%20team/console/`,
      configured: true,
    });
    expect(portal.host.startsWith('mtls.')).toBe(false);
  });

  it('refuses a member who is not an admin', async () => {
    const response = await portal.api('mtls', 'GET', apiPaths.idmConsole, { key: member });
    expect(response.status).toBe(403);
    expect(errorResponseSchema.parse(response.json()).detail).toBe('Not an admin');
  });

  it('refuses a caller without a key on the mTLS face', async () => {
    const response = await portal.api('mtls', 'GET', apiPaths.idmConsole);
    expect(response.status).toBe(403);
    expect(response.text).not.toContain('9443');
  });

  it('refuses an admin with a bearer token on the public face: the admin area is mTLS only', async () => {
    const token = await portal.portal.tokens.issue({
      scope: 'member',
      subject: 'Chief1',
      ttlMs: 60_000,
    });
    const response = await portal.api('public', 'GET', apiPaths.idmConsole, { bearer: token.jwt });
    expect(response.status).toBe(403);
    expect(response.text).not.toContain('9443');
  });

  it('refuses anyone on the public face without a token', async () => {
    const response = await portal.api('public', 'GET', apiPaths.idmConsole);
    expect(response.status).toBe(403);
  });
});

describe('GET admin/idm-console with PORTAL_IDM_CONSOLE_URL set', () => {
  let portal: InjectPortal;
  let admin: MemberKey;

  beforeAll(async () => {
    portal = await openInjectPortal({
      env: { PORTAL_IDM_CONSOLE_URL: 'https://idm.example.org/admin/ops/console/' },
    });
    admin = await portal.addMember('Chief2', { roles: ['admin'] });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('answers the configured address as it is', async () => {
    const response = await portal.api('mtls', 'GET', apiPaths.idmConsole, { key: admin });
    expect(response.status, response.text).toBe(200);
    expect(idmConsoleResponseSchema.parse(response.json())).toEqual({
      idm_console_url: 'https://idm.example.org/admin/ops/console/',
      configured: true,
    });
  });
});

describe('GET admin/idm-console on a default install (neither console URL nor realm set)', () => {
  let portal: InjectPortal;
  let admin: MemberKey;

  beforeAll(async () => {
    portal = await openInjectPortal();
    admin = await portal.addMember('Chief3', { roles: ['admin'] });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('says no console is set up, so that the admin area shows no link pointing nowhere', async () => {
    const response = await portal.api('mtls', 'GET', apiPaths.idmConsole, { key: admin });
    expect(response.status, response.text).toBe(200);
    expect(idmConsoleResponseSchema.parse(response.json())).toMatchObject({ configured: false });
  });
});
