import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, errorResponseSchema, signOutResponseSchema, takPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { TokenService } from '../../src/modules/auth/token-service.js';
import type { ApiResponse } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

// "Sign out on this device" ends the token on the server (docs/api.md, POST token/sign-out;
// issue 36 finding 4): the token sent is refused by every call afterwards, on both faces.

const HOUR_MS = 60 * 60 * 1000;

function expectBadRequest(response: ApiResponse, detail: RegExp): void {
  expect(response.status, response.text).toBe(400);
  expect(errorResponseSchema.parse(response.json()).detail).toMatch(detail);
}

describe.each(testEngines())('sign-out on $name', (engine) => {
  let portal: InjectPortal;
  let alpha: MemberKey;
  let ahead = 0;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env, now: () => new Date(Date.now() + ahead) });
    return portal;
  });
  beforeAll(async () => {
    alpha = await portal.addMember('Alpha1', { roles: ['admin'] });
    await portal.addMember('Bravo1');
  });
  afterEach(() => {
    ahead = 0;
  });

  const db = () => portal.portal.database.db;
  const memberToken = async (callsign: string) =>
    (await portal.portal.tokens.issue({ scope: 'member', subject: callsign, ttlMs: HOUR_MS })).jwt;
  const signOut = (bearer?: string, face: 'public' | 'mtls' = 'public') =>
    portal.api(face, 'POST', apiPaths.signOut, {
      ...(bearer === undefined ? {} : { bearer }),
      ...(face === 'mtls' ? { key: alpha } : {}),
    });
  const signOutEvents = async () =>
    (await listRecentAuditEvents(db(), 50)).filter((event) => event.action === 'sign-out');

  it('ends the token: every call refuses it afterwards, and signing out again changes nothing', async () => {
    const jwt = await memberToken('Bravo1');
    const use = (method: string, path: string) =>
      portal.api('public', method, path, { bearer: jwt });
    expect((await use('GET', apiPaths.checkAuthValidUser)).status).toBe(200);

    const answer = await signOut(jwt);
    expect(answer.status, answer.text).toBe(200);
    expect(signOutResponseSchema.strict().parse(answer.json())).toEqual({ success: true });

    for (const [method, path] of [
      ['GET', apiPaths.checkAuthAny],
      ['GET', apiPaths.checkAuthValidUser],
      ['GET', apiPaths.myKeys],
      ['GET', apiPaths.keyDownload('Bravo1')],
      ['POST', takPaths.enrollmentToken],
    ] as const) {
      expect((await use(method, path)).status, `${method} ${path}`).toBe(403);
    }
    expect(await signOutEvents()).toMatchObject([
      { actor: 'Bravo1', target: 'Bravo1', outcome: 'success', detail: { scope: 'member' } },
    ]);

    const before = await snapshotTables(db());
    expect((await signOut(jwt)).status).toBe(200);
    expect(await snapshotTables(db())).toBe(before);
  });

  it('without a token of this portal: 400 and nothing written', async () => {
    const before = await snapshotTables(db());
    expectBadRequest(await signOut(), /Authorization: Bearer/);
    expectBadRequest(await signOut('not.a.token'), /Not a token of this portal/);
    // Signed with the portal's key an hour ago, for a minute.
    const past = await TokenService.open(portal.config.caDir, () => new Date(Date.now() - HOUR_MS));
    const expired = await past.issue({ scope: 'member', subject: 'Bravo1', ttlMs: 60_000 });
    expectBadRequest(await signOut(expired.jwt), /Not a token of this portal, or it has expired/);
    expect(await snapshotTables(db())).toBe(before);
  });

  it('works on the mTLS face beside a key, and forgets entries once their token has expired', async () => {
    const shortLived = await portal.portal.tokens.issue({
      scope: 'member',
      subject: 'Alpha1',
      ttlMs: 60_000,
    });
    expect((await signOut(shortLived.jwt, 'mtls')).status).toBe(200);
    const kept = async () =>
      (await db().selectFrom('signed_out_tokens').select('jti').execute()).map((row) => row.jti);
    expect(await kept()).toContain(shortLived.claims.jti);

    ahead = 2 * 60_000;
    const later = await portal.portal.tokens.issue({
      scope: 'member',
      subject: 'Bravo1',
      ttlMs: HOUR_MS,
    });
    expect((await signOut(later.jwt)).status).toBe(200);
    expect(await kept()).toContain(later.claims.jti);
    expect(await kept()).not.toContain(shortLived.claims.jti);
  });

  it('a signed-out admin token mints no key, though it is fresh', async () => {
    const jwt = await memberToken('Alpha1');
    expect((await signOut(jwt)).status).toBe(200);
    const before = await snapshotTables(db());
    const download = await portal.api('public', 'GET', apiPaths.keyDownload('Alpha1'), {
      bearer: jwt,
    });
    expect(download.status).toBe(403);
    expect(await snapshotTables(db())).toBe(before);
  });
});
