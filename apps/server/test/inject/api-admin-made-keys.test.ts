import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  keyListResponseSchema,
  renewalCodeResponseSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { addMemberRole } from '../../src/modules/people/repository.js';
import {
  buildTakEnrollApp,
  TAK_ENROLL_PATHS,
} from '../../src/modules/tak/tak-enrollment-face-routes.js';
import type { ApiRequestOptions, ApiResponse } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { opensslCsr } from '../support/tak-client.js';

// No admin makes a key for another admin (docs/api.md, issue 25 finding 1): an admin's TAK
// enrollment token or renewal code never targets another admin, a renewal code for a member who
// holds working keys revokes them, and every key minted through an admin's code records who made
// the code (`made_by`), in the key lists and the audit log.

function expectDetail(response: ApiResponse, status: number, detail?: RegExp): void {
  expect(response.status, response.text).toBe(status);
  const body = errorResponseSchema.parse(response.json());
  if (detail !== undefined) expect(body.detail).toMatch(detail);
}

type PresentedKey = NonNullable<ApiRequestOptions['key']>;

const THE_WAY_OUT = /demote them first, or the operator uses the CLI's admin-code/;

describe.each(testEngines())('keys an admin makes for others on $name', (engine) => {
  let portal: InjectPortal;
  let takFace: FastifyInstance;
  let charlie: MemberKey;
  let golf: MemberKey;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    return portal;
  });
  beforeAll(async () => {
    takFace = await buildTakEnrollApp(portal.portal, { logger: false });
    await takFace.ready();
    await portal.addMember('Alpha1', { roles: ['admin'] });
    charlie = await portal.addMember('Charlie1', { roles: ['admin'] });
    golf = await portal.addMember('Golf1', { roles: ['admin'] });
  });
  afterAll(async () => {
    await takFace.close();
  });

  const db = () => portal.portal.database.db;
  const snapshot = () => snapshotTables(db());
  const asAdmin = (admin: PresentedKey, method: string, urlPath: string, json?: unknown) =>
    portal.api('mtls', method, urlPath, { key: admin, json });
  const keysOf = (response: ApiResponse) => {
    expect(response.status, response.text).toBe(200);
    return keyListResponseSchema.strict().parse(response.json()).keys;
  };
  const lastAudit = async (action: string) =>
    (await listRecentAuditEvents(db(), 20)).find((event) => event.action === action);

  /** A TAK client's signClient/v2 with the callsign and token, for a fresh key with CN `cn`. */
  async function enroll(callsign: string, token: string, cn = callsign) {
    const device = await opensslCsr({ subject: `/CN=${cn}`, key: 'ec' });
    return takFace.inject({
      method: 'POST',
      url: `${TAK_ENROLL_PATHS.signClientV2}?clientUid=ANDROID-${callsign}`,
      headers: {
        authorization: `Basic ${Buffer.from(`${callsign}:${token}`).toString('base64')}`,
        'content-type': 'text/plain',
      },
      payload: device.csrPem,
    });
  }

  async function stationToken(admin: MemberKey, callsign: string) {
    const answer = await asAdmin(admin, 'POST', takPaths.enrollmentTokenFor(callsign));
    expect(answer.status, answer.text).toBe(200);
    return takEnrollmentTokenResponseSchema.parse(answer.json());
  }

  async function renewalCode(admin: MemberKey, callsign: string, json?: unknown) {
    const answer = await asAdmin(admin, 'POST', apiPaths.renewalCode(callsign), json);
    expect(answer.status, answer.text).toBe(200);
    return renewalCodeResponseSchema.strict().parse(answer.json());
  }

  async function exchange(code: string): Promise<string> {
    const answer = await portal.api('public', 'POST', apiPaths.exchangeCode, { json: { code } });
    expect(answer.status, answer.text).toBe(200);
    return exchangeCodeResponseSchema.parse(answer.json()).jwt;
  }

  /** Downloads the member's .pfx with `auth` and keeps it as a key a test can present. */
  async function download(callsign: string, auth: { bearer: string } | { key: PresentedKey }) {
    const face = 'key' in auth ? 'mtls' : 'public';
    const answer = await portal.api(face, 'GET', apiPaths.keyDownload(callsign), auth);
    expect(answer.status, answer.text).toBe(200);
    const pfxFile = path.join(portal.workDir, `${callsign}-${randomUUID()}.pfx`);
    await writeFile(pfxFile, answer.body);
    return { pfxFile, password: callsign };
  }

  describe('TAK enrollment tokens', () => {
    it('an admin’s token for another admin is refused with 409 and the way out; nothing written', async () => {
      const before = await snapshot();
      for (const target of ['Alpha1', 'alpha1', 'Golf1']) {
        const refused = await asAdmin(charlie, 'POST', takPaths.enrollmentTokenFor(target));
        expectDetail(refused, 409, THE_WAY_OUT);
        expect(refused.json()).toMatchObject({ reason: 'admin_key_for_admin' });
      }
      expect(await snapshot()).toBe(before);
      // Their own, as at the self route, is no key for another.
      expect((await asAdmin(charlie, 'POST', takPaths.enrollmentTokenFor('Charlie1'))).status).toBe(
        200,
      );
    });

    it('a key minted with a station’s token records the admin, in both key lists and the audit', async () => {
      const bravo = await portal.addMember('Bravo1');
      const token = await stationToken(charlie, 'Bravo1');
      expect((await lastAudit('tak.enrollment-token'))?.detail).toMatchObject({
        made_by: 'Charlie1',
      });

      const signed = await enroll('Bravo1', token.token);
      expect(signed.statusCode, signed.body).toBe(200);

      const adminView = keysOf(await asAdmin(golf, 'GET', apiPaths.personKeys('Bravo1')));
      const ownView = keysOf(await portal.api('mtls', 'GET', apiPaths.myKeys, { key: bravo }));
      for (const keys of [adminView, ownView]) {
        expect(keys.map((key) => [key.purpose, key.made_by])).toEqual([
          ['tak-enroll', 'Charlie1'],
          ['browser', null],
        ]);
      }
      expect(await lastAudit('tak.enroll')).toMatchObject({
        actor: 'Bravo1',
        target: 'Bravo1',
        detail: { made_by: 'Charlie1', serial: adminView[0]?.serial },
      });

      // The member's own token records nobody.
      const own = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key: bravo });
      const ownToken = takEnrollmentTokenResponseSchema.parse(own.json());
      expect((await enroll('Bravo1', ownToken.token)).statusCode).toBe(200);
      const after = keysOf(await portal.api('mtls', 'GET', apiPaths.myKeys, { key: bravo }));
      expect(after[0]).toMatchObject({ purpose: 'tak-enroll', made_by: null });
    });

    it('a station’s token for a member who has become an admin since signs nothing', async () => {
      await portal.addMember('Delta1');
      const token = await stationToken(charlie, 'Delta1');
      await addMemberRole(db(), 'Delta1', 'admin');
      const before = await snapshotTables(db(), { except: ['failure_windows'] });
      const signed = await enroll('Delta1', token.token);
      expect(signed.statusCode).toBe(401);
      // Only the failed guess is counted.
      expect(await snapshotTables(db(), { except: ['failure_windows'] })).toBe(before);
    });
  });

  describe('renewal codes', () => {
    it('for another admin: 409 with the way out, revoke_keys or not; nothing written', async () => {
      const before = await snapshot();
      for (const body of [undefined, { revoke_keys: true }]) {
        expectDetail(
          await asAdmin(golf, 'POST', apiPaths.renewalCode('Alpha1'), body),
          409,
          THE_WAY_OUT,
        );
      }
      expect(await snapshot()).toBe(before);
    });

    it('for a member with working keys: 409 without revoke_keys; with it their keys are revoked in the same call, counted', async () => {
      const first = await portal.addMember('Echo1');
      const second = await portal.issueKey('Echo1');
      const before = await snapshot();
      for (const body of [undefined, {}, { revoke_keys: false }]) {
        expectDetail(
          await asAdmin(golf, 'POST', apiPaths.renewalCode('Echo1'), body),
          409,
          /Echo1 still holds 2 working key\(s\): send \{"revoke_keys": true\}/,
        );
      }
      expect(await snapshot()).toBe(before);
      expectDetail(
        await asAdmin(golf, 'POST', apiPaths.renewalCode('Echo1'), { revoke_keys: 'yes' }),
        422,
      );
      expect(await snapshot()).toBe(before);

      const made = await renewalCode(golf, 'Echo1', { revoke_keys: true });
      expect(made.keys_revoked).toBe(2);
      for (const key of [first, second]) {
        expect((await portal.api('mtls', 'GET', apiPaths.checkAuthValidUser, { key })).status).toBe(
          403,
        );
      }
      const keys = keysOf(await asAdmin(golf, 'GET', apiPaths.personKeys('Echo1')));
      expect(keys.every((key) => key.revoked_at !== null)).toBe(true);
      expect(await lastAudit('renewal-code.create')).toMatchObject({
        actor: 'Golf1',
        target: 'Echo1',
        detail: { keys_revoked: 2, revoked_serials: [first.serial, second.serial].sort() },
      });

      // Nothing live is left, so the next code needs no revoke_keys and revokes none.
      expect((await renewalCode(golf, 'Echo1')).keys_revoked).toBe(0);
    });

    it('keys minted in the session it opens record the admin who made it, and so do keys those keys mint', async () => {
      await portal.addMember('Foxtrot1');
      const made = await renewalCode(golf, 'Foxtrot1', { revoke_keys: true });
      const jwt = await exchange(made.renewal_code);
      expect((await lastAudit('sign-in'))?.detail).toMatchObject({
        with: 'renewal code',
        made_by: 'Golf1',
      });

      const renewed = await download('Foxtrot1', { bearer: jwt });
      expect(await lastAudit('key.download')).toMatchObject({
        actor: 'Foxtrot1',
        detail: { made_by: 'Golf1' },
      });
      await download('Foxtrot1', { key: renewed });

      const own = keysOf(await portal.api('public', 'GET', apiPaths.myKeys, { bearer: jwt }));
      expect(own.map((key) => [key.revoked_at === null, key.made_by])).toEqual([
        [true, 'Golf1'],
        [true, 'Golf1'],
        [false, null],
      ]);
      // A TAK enrollment token the session makes carries it on too.
      const token = takEnrollmentTokenResponseSchema.parse(
        (await portal.api('public', 'POST', takPaths.enrollmentToken, { bearer: jwt })).json(),
      );
      expect((await enroll('Foxtrot1', token.token)).statusCode).toBe(200);
      const admin = keysOf(await asAdmin(charlie, 'GET', apiPaths.personKeys('Foxtrot1')));
      expect(admin[0]).toMatchObject({ purpose: 'tak-enroll', made_by: 'Golf1' });
    });

    it('for a member who has become an admin since, signs nobody in', async () => {
      await portal.addMember('Hotel1');
      const made = await renewalCode(golf, 'Hotel1', { revoke_keys: true });
      await addMemberRole(db(), 'Hotel1', 'admin');
      expectDetail(
        await portal.api('public', 'POST', apiPaths.exchangeCode, {
          json: { code: made.renewal_code },
        }),
        403,
      );
    });
  });
});
