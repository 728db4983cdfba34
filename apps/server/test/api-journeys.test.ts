import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acceptanceResponseSchema,
  addAdminResponseSchema,
  apiPaths,
  checkAdminCodeResponseSchema,
  checkAuthResponseSchema,
  checkInviteCodeResponseSchema,
  createInviteResponseSchema,
  enrollmentListResponseSchema,
  enrollResponseSchema,
  exchangeCodeResponseSchema,
  caPaths,
  revokePersonResponseSchema,
} from '@callsign/contract';
import { normalizeSerial } from '../src/ca/serial.js';
import { testEngines } from '../src/db/test-engines.testing.js';
import { createAdminCode } from '../src/modules/firstuser/admin-code.js';
import { leafSerialOf } from './support/pfx-files.js';
import { portalOnScratchDatabase } from './support/portal-on-engine.js';
import { run } from './support/processes.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

/**
 * The two journeys of the spec, end to end over real HTTPS, as the web app drives them: the
 * first administrator from the admin code to the mTLS face, and a member from an invite code
 * through approval to the mTLS face.
 */

describe.each(testEngines())('journeys on $name', (engine) => {
  let portal: TestPortal;
  let adminKey: { pfxFile: string; password: string };

  async function saveKey(name: string, body: Buffer, password: string) {
    const pfxFile = path.join(portal.workDir, name);
    await writeFile(pfxFile, body);
    return { pfxFile, password };
  }

  /** The CRL the portal publishes, as `openssl crl` reads it. */
  async function publishedCrl() {
    const pem = (await portal.api('public', 'GET', caPaths.crlPem)).body.toString('utf8');
    const text = await run(
      'openssl',
      ['crl', '-noout', '-crlnumber', '-lastupdate', '-nextupdate', '-text'],
      { input: pem },
    );
    const field = (name: string) => new RegExp(`${name}=(.+)`).exec(text.stdout)?.[1] ?? '';
    return {
      number: BigInt(field('crlNumber')).toString(),
      thisUpdate: new Date(field('lastUpdate')).toISOString(),
      nextUpdate: new Date(field('nextUpdate')).toISOString(),
      serials: [...text.stdout.matchAll(/Serial Number: (\w+)/g)].map((m) =>
        normalizeSerial(m[1] ?? ''),
      ),
    };
  }

  portalOnScratchDatabase(engine, async (env) => (portal = await startTestPortal({ env })));

  it('first admin: admin code, callsign, key, then the mTLS face knows an admin', async () => {
    const { code } = await createAdminCode(portal.portal.database.db, {
      ttlMs: 60_000,
      actor: 'test',
    });
    const check = await portal.api(
      'public',
      'GET',
      `${apiPaths.checkAdminCode}?temp_admin_code=${code.toLowerCase()}`,
    );
    expect(checkAdminCodeResponseSchema.parse(check.json())).toEqual({ code_ok: true });

    const exchanged = await portal.api('public', 'POST', apiPaths.exchangeCode, { json: { code } });
    expect(exchanged.status).toBe(200);
    const firstAdmin = exchangeCodeResponseSchema.parse(exchanged.json()).jwt;

    const added = await portal.api('public', 'POST', apiPaths.addAdmin, {
      json: { callsign: 'Eagle1' },
      bearer: firstAdmin,
    });
    expect(added.status).toBe(200);
    const { jwt_exchange_code } = addAdminResponseSchema.parse(added.json());

    const final = await portal.api('public', 'POST', apiPaths.exchangeCode, {
      json: { code: jwt_exchange_code },
    });
    expect(final.status).toBe(200);
    const memberJwt = exchangeCodeResponseSchema.parse(final.json()).jwt;

    const valid = await portal.api('public', 'GET', apiPaths.checkAuthValidUser, {
      bearer: memberJwt,
    });
    expect(checkAuthResponseSchema.parse(valid.json())).toMatchObject({
      type: 'jwt',
      userid: 'Eagle1',
    });

    const key = await portal.api('public', 'GET', apiPaths.keyDownload('Eagle1'), {
      bearer: memberJwt,
    });
    expect(key.status).toBe(200);
    expect(key.headers['content-disposition']).toBe('attachment; filename="Eagle1.pfx"');
    adminKey = await saveKey('Eagle1.pfx', key.body, 'Eagle1');

    const admin = await portal.api('mtls', 'GET', apiPaths.checkAuthAdmin, { key: adminKey });
    expect(admin.status).toBe(200);
    expect(checkAuthResponseSchema.parse(admin.json())).toMatchObject({
      type: 'mtls',
      userid: 'Eagle1',
    });

    // The admin code and the first-admin session were single use.
    const again = await portal.api('public', 'POST', apiPaths.exchangeCode, { json: { code } });
    expect(again.status).toBe(403);
    const recheck = await portal.api(
      'public',
      'GET',
      `${apiPaths.checkAdminCode}?temp_admin_code=${code}`,
    );
    expect(checkAdminCodeResponseSchema.parse(recheck.json())).toEqual({ code_ok: false });
    const replay = await portal.api('public', 'POST', apiPaths.addAdmin, {
      json: { callsign: 'Eagle2' },
      bearer: firstAdmin,
    });
    expect(replay.status).toBe(403);
  });

  it('member: invite, enroll, wait, approval, key, then the mTLS face knows a member', async () => {
    const created = await portal.api('mtls', 'POST', apiPaths.createInvite, { key: adminKey });
    expect(created.status).toBe(200);
    const { invite_code } = createInviteResponseSchema.parse(created.json());

    const active = await portal.api(
      'public',
      'GET',
      `${apiPaths.checkInviteCode}?invitecode=${invite_code}`,
    );
    expect(checkInviteCodeResponseSchema.parse(active.json())).toEqual({
      invitecode_is_active: true,
    });

    const enrolled = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'Ranger7', invite_code },
    });
    expect(enrolled.status).toBe(200);
    const enrollment = enrollResponseSchema.parse(enrolled.json());
    expect(enrollment.callsign).toBe('Ranger7');
    expect(enrollment.approvecode).toMatch(/^[A-Z2-9]{8}$/);

    const waiting = await portal.api('public', 'GET', apiPaths.acceptance, {
      bearer: enrollment.jwt,
    });
    expect(acceptanceResponseSchema.parse(waiting.json())).toEqual({
      have_i_been_accepted: false,
      state: 'pending',
    });
    const tooEarly = await portal.api('public', 'GET', apiPaths.keyDownload('Ranger7'), {
      bearer: enrollment.jwt,
    });
    expect(tooEarly.status).toBe(403);

    const list = await portal.api('mtls', 'GET', apiPaths.enrollmentList, { key: adminKey });
    expect(enrollmentListResponseSchema.parse(list.json()).callsign_list).toContainEqual({
      callsign: 'Ranger7',
      approvecode: '',
      state: 0,
    });

    const accepted = await portal.api('mtls', 'POST', apiPaths.accept, {
      key: adminKey,
      json: { callsign: 'Ranger7', approvecode: enrollment.approvecode },
    });
    expect(accepted.status).toBe(200);

    const approved = await portal.api('public', 'GET', apiPaths.acceptance, {
      bearer: enrollment.jwt,
    });
    expect(acceptanceResponseSchema.parse(approved.json())).toEqual({
      have_i_been_accepted: true,
      state: 'approved',
    });

    const key = await portal.api('public', 'GET', apiPaths.keyDownload('Ranger7'), {
      bearer: enrollment.jwt,
    });
    expect(key.status).toBe(200);
    const memberKey = await saveKey('Ranger7.pfx', key.body, 'Ranger7');
    const member = await portal.api('mtls', 'GET', apiPaths.checkAuthValidUser, {
      key: memberKey,
    });
    expect(checkAuthResponseSchema.parse(member.json())).toMatchObject({
      type: 'mtls',
      userid: 'Ranger7',
    });
    const notAdmin = await portal.api('mtls', 'GET', apiPaths.checkAuthAdmin, { key: memberKey });
    expect(notAdmin.status).toBe(403);

    // Revoking the member returns the invite code they came with and shuts their key out.
    const revoked = await portal.api('mtls', 'DELETE', apiPaths.person('Ranger7'), {
      key: adminKey,
    });
    const answer = revokePersonResponseSchema.parse(revoked.json());
    expect(answer).toMatchObject({ success: true, invite_code });
    // The receipt agrees with what a relying party reads with openssl: the published CRL (its
    // number and time, the member's certificate listed) and the member's newest key revoked.
    const serial = await leafSerialOf(memberKey);
    const published = await publishedCrl();
    expect(published.serials).toContain(serial);
    const { ocsp, ...receipt } = answer.receipt;
    expect(receipt).toEqual({
      certificates_revoked: 1,
      crl: {
        number: published.number,
        this_update: published.thisUpdate,
        next_update: published.nextUpdate,
        lists_revoked: 1,
      },
      newest_serial: serial,
    });
    expect(ocsp?.status).toBe('revoked');
    expect(Math.abs(Date.parse(ocsp?.revoked_at ?? '') - Date.now())).toBeLessThan(60_000);
    const refused = await portal.api('mtls', 'GET', apiPaths.checkAuthValidUser, {
      key: memberKey,
    });
    expect(refused.status).toBe(403);
    // And the callsign can never be enrolled again.
    const reenroll = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'ranger7', invite_code },
    });
    expect(reenroll.status).toBe(400);
  });
});
