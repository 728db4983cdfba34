import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  renewalCodeResponseSchema,
  roleChangeResponseSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import {
  buildTakEnrollApp,
  TAK_ENROLL_PATHS,
} from '../../src/modules/tak/tak-enrollment-face-routes.js';
import type { ApiRequestOptions, ApiResponse } from '../support/api-client.js';
import { keyCallsFor } from '../support/api-routes.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { opensslCsr } from '../support/tak-client.js';

// A key carries admin power only if the member minted it themselves (docs/api.md, "Admin power
// needs your own key"; issue 36 finding 1): a key minted through another admin's code (a TAK
// enrollment token an admin made, a renewal code's session) stays a member key after promotion.

type PresentedKey = NonNullable<ApiRequestOptions['key']>;

const FIFTEEN_MINUTES_MS = 15 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

function expectRefusal(response: ApiResponse, reason: string): void {
  expect(response.status, response.text).toBe(403);
  expect(errorResponseSchema.parse(response.json()).reason).toBe(reason);
}

describe.each(testEngines())('admin power only in own keys on $name', (engine) => {
  let portal: InjectPortal;
  let takFace: FastifyInstance;
  let alpha: MemberKey;
  let charlie: MemberKey;

  let ahead = 0;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env, now: () => new Date(Date.now() + ahead) });
    return portal;
  });
  afterEach(() => {
    ahead = 0;
  });
  beforeAll(async () => {
    takFace = await buildTakEnrollApp(portal.portal, { logger: false });
    await takFace.ready();
    alpha = await portal.addMember('Alpha1', { roles: ['admin'] });
    charlie = await portal.addMember('Charlie1', { roles: ['admin'] });
  });
  afterAll(async () => {
    await takFace.close();
  });

  const db = () => portal.portal.database.db;
  const asAdmin = (admin: PresentedKey, method: string, urlPath: string, json?: unknown) =>
    portal.api('mtls', method, urlPath, { key: admin, json });

  /** A device's key enrolled on the TAK enrollment face with `token`, as a key a test presents. */
  async function enrolledKey(callsign: string, token: string): Promise<PresentedKey> {
    const device = await opensslCsr({ subject: `/CN=${callsign}`, key: 'ec' });
    const signed = await takFace.inject({
      method: 'POST',
      url: `${TAK_ENROLL_PATHS.signClientV2}?clientUid=ANDROID-${callsign}`,
      headers: {
        authorization: `Basic ${Buffer.from(`${callsign}:${token}`).toString('base64')}`,
        'content-type': 'text/plain',
      },
      payload: device.csrPem,
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const { signedCert } = JSON.parse(signed.body) as { signedCert: string };
    const certificatePem = `-----BEGIN CERTIFICATE-----\n${signedCert}\n-----END CERTIFICATE-----\n`;
    return { pfxFile: 'unused', password: callsign, certificatePem };
  }

  async function promote(admin: PresentedKey, callsign: string): Promise<string> {
    const answer = await asAdmin(admin, 'POST', apiPaths.promote, { callsign });
    expect(answer.status, answer.text).toBe(200);
    return roleChangeResponseSchema.parse(answer.json()).detail;
  }

  it('a station key an admin’s TAK enrollment token minted stays a member key after promotion', async () => {
    const xray = await portal.addMember('Xray1');
    const made = await asAdmin(charlie, 'POST', takPaths.enrollmentTokenFor('Xray1'));
    expect(made.status, made.text).toBe(200);
    const token = takEnrollmentTokenResponseSchema.parse(made.json()).token;
    const station = await enrolledKey('Xray1', token);

    const detail = await promote(alpha, 'Xray1');
    // Charlie is demoted and revoked; the key Charlie kept answers no admin call.
    expect((await asAdmin(alpha, 'DELETE', apiPaths.person('Charlie1'))).status).toBe(200);
    expectRefusal(await asAdmin(station, 'GET', apiPaths.members), 'admin_needs_own_key');
    expectRefusal(
      await asAdmin(station, 'POST', apiPaths.createInvite, { auto_approve: true }),
      'admin_needs_own_key',
    );
    expectRefusal(await asAdmin(station, 'GET', apiPaths.checkAuthAdmin), 'admin_needs_own_key');
    // It keeps the member's own access, and the member's own key is an admin's.
    expect((await asAdmin(station, 'GET', apiPaths.myKeys)).status).toBe(200);
    expect((await asAdmin(station, 'GET', apiPaths.checkAuthValidUser)).status).toBe(200);
    expect((await asAdmin(xray, 'GET', apiPaths.members)).status).toBe(200);
    // Promotion said so.
    expect(detail).toMatch(/1 of Xray1’s live keys was minted through another admin’s code/);
  });

  it('a key a renewal code’s session minted stays a member key after promotion, and so do keys it mints', async () => {
    await portal.addMember('Yankee1');
    const code = await asAdmin(alpha, 'POST', apiPaths.renewalCode('Yankee1'), {
      revoke_keys: true,
    });
    expect(code.status, code.text).toBe(200);
    const exchanged = await portal.api('public', 'POST', apiPaths.exchangeCode, {
      json: { code: renewalCodeResponseSchema.parse(code.json()).renewal_code },
    });
    const jwt = exchangeCodeResponseSchema.parse(exchanged.json()).jwt;
    const made = await portal.api('public', 'POST', takPaths.enrollmentToken, { bearer: jwt });
    const renewed = await enrolledKey(
      'Yankee1',
      takEnrollmentTokenResponseSchema.parse(made.json()).token,
    );

    await promote(alpha, 'Yankee1');
    expectRefusal(await asAdmin(renewed, 'GET', apiPaths.members), 'admin_needs_own_key');
    // A key it mints on the mTLS face records the same admin: still no admin power.
    const download = await asAdmin(renewed, 'GET', apiPaths.keyDownload('Yankee1'));
    expect(download.status, download.text).toBe(200);
    const minted = {
      pfxFile: path.join(portal.workDir, 'Yankee1-minted.pfx'),
      password: 'Yankee1',
    };
    await writeFile(minted.pfxFile, download.body);
    expectRefusal(await asAdmin(minted, 'GET', apiPaths.members), 'admin_needs_own_key');
    expect((await asAdmin(minted, 'GET', apiPaths.myKeys)).status).toBe(200);
  });

  describe('a key that carries admin power, minted with a bearer token', () => {
    const signedInAs = async (callsign: string) =>
      (await portal.portal.tokens.issue({ scope: 'member', subject: callsign, ttlMs: HOUR_MS }))
        .jwt;
    const keyCalls = keyCallsFor;

    it('comes within 15 minutes of the sign-in, and carries admin power', async () => {
      const jwt = await signedInAs('Alpha1');
      ahead = FIFTEEN_MINUTES_MS - 60_000;
      const download = await portal.api('public', 'GET', apiPaths.keyDownload('Alpha1'), {
        bearer: jwt,
      });
      expect(download.status, download.text).toBe(200);
      ahead = 0;
      const pfxFile = path.join(portal.workDir, 'Alpha1-fresh.pfx');
      await writeFile(pfxFile, download.body);
      expect((await asAdmin({ pfxFile, password: 'Alpha1' }, 'GET', apiPaths.members)).status).toBe(
        200,
      );
    });

    it('is refused to a token older than 15 minutes on every call that hands out a key; nothing written', async () => {
      const jwt = await signedInAs('Alpha1');
      ahead = FIFTEEN_MINUTES_MS + 60_000;
      const before = await snapshotTables(db());
      for (const [method, urlPath] of keyCalls('Alpha1')) {
        const refused = await portal.api('public', method, urlPath, { bearer: jwt });
        expectRefusal(refused, 'admin_key_needs_fresh_sign_in');
      }
      expect(await snapshotTables(db())).toBe(before);
      // The sign-in checks still answer; the admin's own key still mints.
      expect(
        (await portal.api('public', 'GET', apiPaths.checkAuthValidUser, { bearer: jwt })).status,
      ).toBe(200);
      expect((await asAdmin(alpha, 'GET', apiPaths.keyDownload('Alpha1'))).status).toBe(200);
    });

    it('does not bind a member’s token, whose keys carry no admin power', async () => {
      await portal.addMember('Kilo1');
      const jwt = await signedInAs('Kilo1');
      ahead = FIFTEEN_MINUTES_MS + 60_000;
      for (const [method, urlPath] of keyCalls('Kilo1')) {
        const answer = await portal.api('public', method, urlPath, { bearer: jwt });
        expect(answer.status, `${method} ${urlPath}: ${answer.text}`).toBe(200);
      }
    });
  });
});
