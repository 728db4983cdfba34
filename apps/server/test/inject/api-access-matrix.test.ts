import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  addAdminResponseSchema,
  apiPaths,
  enrollResponseSchema,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  takPaths,
  type TokenScope,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import type { Access, ApiRoute } from '../../src/modules/auth/access.js';
import { createAdminCode } from '../../src/modules/firstuser/admin-code.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { revokeMember } from '../../src/commands/revoke-member.js';
import type { ApiRequestOptions, ApiResponse, Face } from '../support/api-client.js';
import { pathOf, registeredApiRoutes } from '../support/api-routes.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

/**
 * Who may call what (docs/api.md, issue 13): every registered /api route, called by every
 * kind of caller on both faces, through the inject tier. The expectation below is written from the
 * rules, per access level; the routes come from the portal itself, so a new route is in the
 * matrix without being listed here. A call counts as let through when the answer is anything
 * but an access refusal (a 404 for an unknown callsign is let through: the rules allowed it).
 */

const routes = await registeredApiRoutes();

/** The details of the 403s that refuse access (the mTLS gate's and the access check's). */
const ACCESS_REFUSALS = new Set([
  'A valid client certificate from this portal is required',
  'Not authenticated',
  'Not a valid user',
  'Not an admin',
  'Admin calls need your key on the mTLS face',
  'A first-admin session is required',
]);

type MemberState = 'active' | 'pending' | 'revoked';

/** A kind of caller: what they present, and what the portal knows about whom it names. */
interface Who {
  name: string;
  callsign?: string;
  state?: MemberState;
  admin?: boolean;
  jwt?: { scope: TokenScope; token: string };
  key?: MemberKey;
}

/** What the rules say, written without looking at the implementation. */
function allowed(access: Access, who: Who, face: Face): boolean {
  if (access === 'ungated') return true;
  // The mTLS face admits only a valid key; the public face never asks for one.
  if (face === 'mtls' && (who.key === undefined || who.state === 'revoked')) return false;
  const identity = face === 'mtls' ? 'key' : who.jwt === undefined ? undefined : 'jwt';
  const valid = identity !== undefined && who.state === 'active';
  switch (access) {
    case 'anonymous':
      return true;
    case 'first-admin':
      return identity === 'jwt' && who.jwt?.scope === 'first-admin';
    case 'any':
      return identity !== undefined;
    case 'member':
      return valid;
    case 'admin-check':
      return valid && who.admin === true;
    case 'admin':
      // Admin power needs the key: a bearer token of any scope, an admin's included, gets 403.
      return identity === 'key' && valid && who.admin === true;
  }
}

/** Harmless values for every field and parameter: calls let through change (almost) nothing. */
const SAMPLES: Record<string, unknown> = {
  callsign: 'Matrix1',
  invite_code: 'ZZZZ9999',
  invitecode: 'ZZZZ9999',
  code: 'ZZZZ99999999',
  temp_admin_code: 'ZZZZ99999999',
  approvecode: 'WRONG234',
  lock_reason: 'matrix',
  format: 'legacy',
  callsigns: ['Matrix9'],
  team: 'Cyan',
  role: 'Team Member',
  valid_hours: 1,
  label: 'matrix',
  expires_at: '2999-01-01T00:00:00.000Z',
  max_uses: 1,
  auto_approve: false,
  revoke_keys: false,
  serial: '0a0b0c0d',
  days: '30',
  client: 'itak',
  name: 'MatrixGroup',
  description: 'matrix',
  groups: [],
  force: 'false',
};

/** The object schema of a body or query, also when it is optional (invitecode/create). */
function objectSchema(schema: unknown): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return objectSchema(schema.unwrap());
  }
  return undefined;
}

function sampleFor(schema: unknown): Record<string, unknown> {
  const object = objectSchema(schema);
  if (object === undefined) return {};
  return Object.fromEntries(Object.keys(object.shape).map((name) => [name, SAMPLES[name] ?? '']));
}

/** The request a caller makes to a route: their own callsign in the path (their key download). */
function requestFor(route: ApiRoute, who: Who): [string, unknown] {
  const query = new URLSearchParams(
    Object.entries(sampleFor(route.schema.querystring)).map(([name, value]): [string, string] => [
      name,
      String(value),
    ]),
  ).toString();
  const parameter = (name: string) => {
    if (name === 'callsign') return who.callsign ?? 'Matrix1';
    const sample = SAMPLES[name];
    return typeof sample === 'string' ? sample : 'ZZZZ9999';
  };
  const path = `${pathOf(route, parameter)}${query === '' ? '' : `?${query}`}`;
  const body = route.schema.body === undefined ? undefined : sampleFor(route.schema.body);
  return [path, body];
}

function isAccessRefusal(response: ApiResponse): boolean {
  if (response.status !== 403) return false;
  const { detail } = errorResponseSchema.parse(response.json());
  return typeof detail === 'string' && ACCESS_REFUSALS.has(detail);
}

describe.each(testEngines())('the access matrix on $name', (engine) => {
  let portal: InjectPortal;
  const callers: Who[] = [];

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env: { ...env, PORTAL_RATE_LIMIT_FAILURES: '100000' } });
    return portal;
  });

  beforeAll(async () => {
    const api = (face: Face, method: string, path: string, options: ApiRequestOptions) =>
      portal.api(face, method, path, options);
    const db = portal.portal.database.db;
    const issue = async (scope: TokenScope, subject?: string) =>
      (
        await portal.portal.tokens.issue({
          scope,
          ttlMs: 3_600_000,
          ...(subject ? { subject } : {}),
        })
      ).jwt;

    // The first admin as the web app makes one: admin code, add-admin, the member token.
    const { code } = await createAdminCode(db, { ttlMs: 60_000, actor: 'test' });
    const exchange = async (value: string) =>
      exchangeCodeResponseSchema.parse(
        (await api('public', 'POST', apiPaths.exchangeCode, { json: { code: value } })).json(),
      ).jwt;
    const firstAdmin = await exchange(code);
    const added = await api('public', 'POST', apiPaths.addAdmin, {
      json: { callsign: 'Matrix1' },
      bearer: firstAdmin,
    });
    const adminToken = await exchange(addAdminResponseSchema.parse(added.json()).jwt_exchange_code);
    const adminKey = await portal.issueKey('Matrix1');

    // Enrollees: one left waiting, one accepted and then promoted by the admin with their key.
    await insertInviteCode(db, { code: 'MATRIX22', createdAt: Date.now(), ownerCallsign: null });
    const enroll = async (callsign: string) =>
      enrollResponseSchema.parse(
        (
          await api('public', 'POST', apiPaths.enroll, {
            json: { callsign, invite_code: 'MATRIX22' },
          })
        ).json(),
      );
    const pending = await enroll('Waiting1');
    const promoted = await enroll('Promoted1');
    const asAdmin = (path: string, json: unknown) =>
      api('mtls', 'POST', path, { key: adminKey, json });
    expect(
      (await asAdmin(apiPaths.accept, { callsign: 'Promoted1', approvecode: promoted.approvecode }))
        .status,
    ).toBe(200);
    expect((await asAdmin(apiPaths.promote, { callsign: 'Promoted1' })).status).toBe(200);

    const memberKey = await portal.addMember('Member1');
    const revokedKey = await portal.addMember('Fallen1', { roles: ['admin'] });
    await revokeMember(db, portal.portal.certificates, {
      callsign: 'Fallen1',
      actor: 'test',
      clientAddress: null,
    });

    callers.push(
      { name: 'no identity' },
      {
        name: 'a pending enrollee’s token',
        callsign: 'Waiting1',
        state: 'pending',
        jwt: { scope: 'enrollment', token: pending.jwt },
      },
      {
        name: 'a member’s token',
        callsign: 'Member1',
        state: 'active',
        jwt: { scope: 'member', token: await issue('member', 'Member1') },
      },
      {
        name: 'a promoted admin’s enrollment token',
        callsign: 'Promoted1',
        state: 'active',
        admin: true,
        jwt: { scope: 'enrollment', token: promoted.jwt },
      },
      {
        name: 'the first admin’s member token (from add-admin)',
        callsign: 'Matrix1',
        state: 'active',
        admin: true,
        jwt: { scope: 'member', token: adminToken },
      },
      {
        name: 'a first-admin session',
        jwt: { scope: 'first-admin', token: await issue('first-admin') },
      },
      { name: 'a member’s key', callsign: 'Member1', state: 'active', key: memberKey },
      { name: 'an admin’s key', callsign: 'Matrix1', state: 'active', admin: true, key: adminKey },
      {
        name: 'a revoked admin’s key',
        callsign: 'Fallen1',
        state: 'revoked',
        admin: true,
        key: revokedKey,
      },
    );
  });

  it('declares every admin call admin: the key on the mTLS face only', () => {
    const adminCalls = [
      `GET ${apiPaths.peopleList}`,
      'DELETE /api/v1/people/:callsign',
      `POST ${apiPaths.promote}`,
      `POST ${apiPaths.demote}`,
      `GET ${apiPaths.pools}`,
      `POST ${apiPaths.createInvite}`,
      `PUT ${apiPaths.deactivateInvite}`,
      `PUT ${apiPaths.activateInvite}`,
      'DELETE /api/v1/enrollment/invitecode/:code',
      `GET ${apiPaths.enrollmentList}`,
      `POST ${apiPaths.accept}`,
      `POST ${apiPaths.lock}`,
      `GET ${apiPaths.idmConsole}`,
      'GET /api/v1/people/:callsign/preset',
      'PUT /api/v1/people/:callsign/preset',
      `POST ${apiPaths.bulk}`,
      `POST ${apiPaths.bulkCheck}`,
      'GET /api/v1/enrollment/bulk/:batch_id',
      'POST /api/v1/enrollment/bulk/:batch_id/void',
      'GET /api/v1/people/:callsign/keys',
      'DELETE /api/v1/people/:callsign/keys/:serial',
      'POST /api/v1/people/:callsign/renewal-code',
      `GET ${apiPaths.expiring}`,
      `GET ${apiPaths.caExpiry}`,
      `GET ${apiPaths.audit}`,
      `GET ${apiPaths.auditCsv}`,
      `GET ${apiPaths.takReadiness}`,
      `GET ${apiPaths.members}`,
      `GET ${apiPaths.members}/:callsign`,
      `POST ${takPaths.enrollmentToken}/:callsign`,
      `GET ${apiPaths.groups}`,
      `POST ${apiPaths.groups}`,
      'DELETE /api/v1/groups/:name',
      'GET /api/v1/people/:callsign/groups',
      'PUT /api/v1/people/:callsign/groups',
      `GET ${apiPaths.directory}`,
    ];
    const declared = new Map(routes.map((route) => [`${route.method} ${route.url}`, route.access]));
    for (const call of adminCalls) expect(declared.get(call), call).toBe('admin');
  });

  it('lets bearer tokens call only what the spec gives them, and nothing else', () => {
    // A new call that answers a JWT must be added here on purpose (docs/api.md).
    const tokenCalls = routes
      .filter((route) => ['first-admin', 'any', 'member', 'admin-check'].includes(route.access))
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(tokenCalls).toEqual(
      [
        `GET ${apiPaths.checkAuthAny}`,
        `GET ${apiPaths.checkAuthValidUser}`,
        `GET ${apiPaths.checkAuthAdmin}`,
        `GET ${apiPaths.acceptance}`,
        `POST ${apiPaths.addAdmin}`,
        'GET /api/v1/enduserpfx/:callsign',
        `GET ${apiPaths.instructions}`,
        `GET ${apiPaths.myPreset}`,
        `GET ${apiPaths.myGroups}`,
        // A member connects ATAK with their JWT once approved, without a browser key.
        `POST ${takPaths.enrollmentToken}`,
        `GET ${takPaths.trustPackage}`,
        // A member's own keys: with a token none of them is the one in use.
        `GET ${apiPaths.myKeys}`,
        'DELETE /api/v1/me/keys/:serial',
      ].sort(),
    );
  });

  it('covers every registered call, the ones a hand-kept list once missed included', () => {
    const calls = routes.map((route) => `${route.method} ${route.url}`);
    expect(calls).toContain(`GET ${apiPaths.instructions}`);
    expect(calls).toContain(`GET ${apiPaths.idmConsole}`);
    expect(calls.length).toBeGreaterThanOrEqual(26);
  });

  /**
   * The caller's token, or for sign-out, which ends the token it is sent, a copy of it (the same
   * scope and subject): the callers' own tokens must still work for the routes after it.
   */
  async function bearerFor(route: ApiRoute, who: Who): Promise<string | undefined> {
    if (who.jwt === undefined) return undefined;
    if (route.url !== apiPaths.signOut) return who.jwt.token;
    const copy = await portal.portal.tokens.issue({
      scope: who.jwt.scope,
      ttlMs: 3_600_000,
      ...(who.callsign === undefined ? {} : { subject: who.callsign }),
    });
    return copy.jwt;
  }

  it.each(routes.map((route) => [route.method, route.url, route] as const))(
    '%s %s answers exactly the callers its access allows, on both faces',
    async (method, _url, route) => {
      const wrong: string[] = [];
      for (const face of ['public', 'mtls'] as const) {
        for (const who of callers) {
          const [path, json] = requestFor(route, who);
          const bearer = await bearerFor(route, who);
          const response = await portal.api(face, method, path, {
            ...(bearer === undefined ? {} : { bearer }),
            ...(who.key === undefined ? {} : { key: who.key }),
            ...(json === undefined ? {} : { json }),
          });
          expect(response.status, `${face} ${who.name}: ${response.text}`).toBeLessThan(500);
          const expected = allowed(route.access, who, face);
          if (isAccessRefusal(response) === expected) {
            wrong.push(
              `${face}, ${who.name}: expected ${expected ? 'through' : 'refused'}, got ` +
                `${response.status} ${response.text.slice(0, 120)}`,
            );
          } else if (!expected) {
            expect(response.status).toBe(403);
          }
        }
      }
      expect(wrong, `access ${route.access}`).toEqual([]);
    },
  );
});
