import { strFromU8, unzipSync } from 'fflate';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acceptanceResponseSchema,
  apiPaths,
  batchResponseSchema,
  BULK_MAX_CALLSIGNS,
  bulkCheckResponseSchema,
  bulkResponseSchema,
  checkInviteCodeResponseSchema,
  createInviteResponseSchema,
  enrollmentListResponseSchema,
  enrollResponseSchema,
  errorResponseSchema,
  instructionsResponseSchema,
  poolsResponseSchema,
  presetResponseSchema,
  voidBatchResponseSchema,
  ZIP_DATA_URL_PREFIX,
  type BatchResponse,
  type CreateInviteBody,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { xpathString } from '../../src/tak/xpath.testing.js';
import type { ApiResponse } from '../support/api-client.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

/**
 * Onboarding a unit (docs/api.md, "Onboarding a unit"; issue 18), in-process (the inject tier)
 * on both engines: invite codes with a label, an expiry, a use limit, auto-approval and a
 * preset; members' presets in their TAK packages; bulk slips, all or nothing, each for one
 * callsign, followed from issued to revoked.
 */

const HOUR = 3_600_000;

function detailOf(response: ApiResponse): string {
  const { detail } = errorResponseSchema.parse(response.json());
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

describe.each(testEngines())('onboarding on $name', (engine) => {
  let portal: InjectPortal;
  let admin: MemberKey;
  const db = () => portal.portal.database.db;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({
      env: {
        ...env,
        PORTAL_DEPLOYMENT: 'alpha',
        TAK_HOST: 'tak.example.org',
        // Twenty racing enrollments each count a refusal: keep the budget out of the way.
        PORTAL_RATE_LIMIT_FAILURES: '10000',
      },
    });
    return portal;
  });
  beforeAll(async () => {
    admin = await portal.addMember('Boss1', { roles: ['admin'] });
  });

  const asAdmin = (method: string, path: string, json?: unknown) =>
    portal.api('mtls', method, path, { key: admin, ...(json === undefined ? {} : { json }) });

  async function createInvite(body?: CreateInviteBody): Promise<string> {
    const response = await asAdmin('POST', apiPaths.createInvite, body);
    expect(response.status, response.text).toBe(200);
    return createInviteResponseSchema.parse(response.json()).invite_code;
  }

  async function pool(code: string) {
    const response = await asAdmin('GET', apiPaths.pools);
    expect(response.status).toBe(200);
    return poolsResponseSchema.parse(response.json()).pools.find((p) => p.invitecode === code);
  }

  const enroll = (callsign: string, inviteCode: string) =>
    portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign, invite_code: inviteCode },
    });

  async function enrolled(callsign: string, inviteCode: string) {
    const response = await enroll(callsign, inviteCode);
    expect(response.status, response.text).toBe(200);
    return enrollResponseSchema.parse(response.json());
  }

  async function acceptance(jwt: string) {
    const response = await portal.api('public', 'GET', apiPaths.acceptance, { bearer: jwt });
    return acceptanceResponseSchema.parse(response.json());
  }

  async function inviteCheck(code: string) {
    const response = await portal.api(
      'public',
      'GET',
      `${apiPaths.checkInviteCode}?invitecode=${code}`,
    );
    return checkInviteCodeResponseSchema.parse(response.json());
  }

  async function presetOf(callsign: string) {
    const response = await asAdmin('GET', apiPaths.preset(callsign));
    expect(response.status, response.text).toBe(200);
    return presetResponseSchema.parse(response.json());
  }

  describe('invite codes with options', () => {
    it('without a body: a plain reusable code, listed with no options', async () => {
      const code = await createInvite();
      expect(await pool(code)).toEqual({
        invitecode: code,
        active: true,
        created: expect.any(String) as string,
        owner_cs: 'Boss1',
        state: 'active',
        label: null,
        expires_at: null,
        max_uses: null,
        uses: 0,
        auto_approve: false,
        team: null,
        role: null,
        reserved_callsign: null,
        batch_id: null,
        groups: [],
      });
      // The check answers exactly as the spec's client knows it.
      expect(await inviteCheck(code)).toEqual({ invitecode_is_active: true });
      const { jwt } = await enrolled('Plain1', code);
      await enrolled('Plain2', code);
      expect(await acceptance(jwt)).toEqual({ have_i_been_accepted: false, state: 'pending' });
      expect(await pool(code)).toMatchObject({ uses: 2, state: 'active' });
      // Pending members already carry the default preset.
      expect(await presetOf('Plain1')).toEqual({
        callsign: 'Plain1',
        team: 'Cyan',
        role: 'Team Member',
      });
    });

    it('keeps label, expiry, use limit, auto-approval and preset, and audits them', async () => {
      const expires = new Date(Date.now() + 48 * HOUR).toISOString();
      const code = await createInvite({
        label: '  Exercise North  ',
        expires_at: expires,
        max_uses: 10,
        auto_approve: false,
        team: 'Dark Blue',
        role: 'Forward Observer',
      });
      expect(await pool(code)).toMatchObject({
        label: 'Exercise North',
        expires_at: expires,
        max_uses: 10,
        uses: 0,
        auto_approve: false,
        team: 'Dark Blue',
        role: 'Forward Observer',
      });
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        action: 'invite.create',
        target: code,
        actor: 'Boss1',
        detail: { label: 'Exercise North', maxUses: 10, team: 'Dark Blue' },
      });
      await enrolled('Observer1', code);
      expect(await presetOf('Observer1')).toMatchObject({
        team: 'Dark Blue',
        role: 'Forward Observer',
      });
    });

    it('refuses bad options and writes nothing: past expiry (400), unknown team, zero uses (422)', async () => {
      const before = await snapshotTables(db());
      const past = await asAdmin('POST', apiPaths.createInvite, {
        expires_at: new Date(Date.now() - 1000).toISOString(),
      });
      expect(past.status).toBe(400);
      expect(detailOf(past)).toBe('expires_at must be in the future');
      for (const body of [{ team: 'Pink' }, { role: 'Captain' }, { max_uses: 0 }, { nope: 1 }]) {
        const refused = await asAdmin('POST', apiPaths.createInvite, body);
        expect(refused.status, JSON.stringify(body)).toBe(422);
      }
      expect(await snapshotTables(db())).toBe(before);
    });

    it('an expired code admits nobody: 400 as a deactivated one, and the check says so', async () => {
      const code = 'EXPD2345';
      await insertInviteCode(db(), {
        code,
        createdAt: Date.now() - 2 * HOUR,
        ownerCallsign: 'Boss1',
        expiresAt: Date.now() - HOUR,
      });
      expect(await inviteCheck(code)).toEqual({
        invitecode_is_active: false,
        invitecode_state: 'expired',
      });
      const before = await snapshotTables(db(), { except: ['audit_events'] });
      const refused = await enroll('Late1', code);
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe('Invite code expired');
      expect(await snapshotTables(db(), { except: ['audit_events'] })).toBe(before);
      expect(await pool(code)).toMatchObject({ state: 'expired', uses: 0, active: true });
    });

    it('counts uses under concurrency: 20 racing enrollments on max_uses 5 admit exactly 5', async () => {
      const code = await createInvite({ max_uses: 5 });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) => enroll(`Racer${index}`, code)),
      );
      const admitted = answers.filter((answer) => answer.status === 200);
      expect(admitted).toHaveLength(5);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expect(refused.status).toBe(400);
        expect(detailOf(refused)).toBe('Invite code used up');
      }
      expect(await pool(code)).toMatchObject({ uses: 5, max_uses: 5, state: 'used-up' });
      const members = await db()
        .selectFrom('members')
        .select('callsign')
        .where('invite_code', '=', code)
        .execute();
      expect(members).toHaveLength(5);
      expect(await inviteCheck(code)).toEqual({
        invitecode_is_active: false,
        invitecode_state: 'used-up',
      });
    });

    it('auto-approve: the enrollee is a member at once, with the preset, and fetches a key', async () => {
      const code = await createInvite({ auto_approve: true, team: 'Red', role: 'Medic' });
      const { jwt, callsign } = await enrolled('Medic1', code);
      expect(await acceptance(jwt)).toEqual({ have_i_been_accepted: true, state: 'approved' });
      const list = enrollmentListResponseSchema.parse(
        (await asAdmin('GET', apiPaths.enrollmentList)).json(),
      );
      expect(list.callsign_list.find((entry) => entry.callsign === callsign)?.state).toBe(1);
      const [accepted, created] = await listRecentAuditEvents(db(), 2);
      expect(created).toMatchObject({ action: 'enrollment.create', actor: 'Medic1' });
      expect(accepted).toMatchObject({
        action: 'enrollment.accept',
        actor: 'Boss1',
        target: 'Medic1',
        detail: { auto_approve: true, invite_code: code },
      });
      const decided = await db()
        .selectFrom('enrollments')
        .select(['state', 'decided_by'])
        .where('callsign', '=', 'Medic1')
        .executeTakeFirstOrThrow();
      expect(decided).toEqual({ state: 1, decided_by: 'Boss1' });
      const key = await portal.api('public', 'GET', apiPaths.keyDownload('Medic1'), {
        bearer: jwt,
      });
      expect(key.status).toBe(200);
      expect(await presetOf('Medic1')).toMatchObject({ team: 'Red', role: 'Medic' });
    });
  });

  describe('member presets', () => {
    it('an admin sets a preset; bad ones are refused and change nothing', async () => {
      await portal.addMember('Scout1');
      const set = await asAdmin('PUT', apiPaths.preset('scout1'), {
        team: 'Green',
        role: 'Sniper',
      });
      expect(set.status, set.text).toBe(200);
      expect(presetResponseSchema.parse(set.json())).toEqual({
        callsign: 'Scout1',
        team: 'Green',
        role: 'Sniper',
      });
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        action: 'member.preset',
        actor: 'Boss1',
        target: 'Scout1',
        detail: { team: 'Green', role: 'Sniper', was: { team: 'Cyan', role: 'Team Member' } },
      });
      const before = await snapshotTables(db());
      for (const body of [
        { team: 'green', role: 'Sniper' },
        { team: 'Green' },
        { team: 'Green', role: 'Sniper', extra: true },
      ]) {
        const refused = await asAdmin('PUT', apiPaths.preset('Scout1'), body);
        expect(refused.status, JSON.stringify(body)).toBe(422);
      }
      const unknown = await asAdmin('PUT', apiPaths.preset('Nobody9'), {
        team: 'Green',
        role: 'Sniper',
      });
      expect(unknown.status).toBe(404);
      expect(await snapshotTables(db())).toBe(before);
    });

    it('the member reads their own preset, with their key or their token', async () => {
      const key = await portal.addMember('Reader1');
      await asAdmin('PUT', apiPaths.preset('Reader1'), { team: 'Purple', role: 'HQ' });
      const byKey = await portal.api('mtls', 'GET', apiPaths.myPreset, { key });
      expect(presetResponseSchema.parse(byKey.json())).toEqual({
        callsign: 'Reader1',
        team: 'Purple',
        role: 'HQ',
      });
      const { jwt } = await portal.portal.tokens.issue({
        scope: 'member',
        subject: 'Reader1',
        ttlMs: 60_000,
      });
      const byToken = await portal.api('public', 'GET', apiPaths.myPreset, { bearer: jwt });
      expect(presetResponseSchema.parse(byToken.json()).team).toBe('Purple');
    });

    it('the TAK packages carry the preset: ATAK team and role, the tracker role', async () => {
      const key = await portal.addMember('Packer1');
      await asAdmin('PUT', apiPaths.preset('Packer1'), { team: 'Dark Green', role: 'K9' });
      const response = await portal.api('mtls', 'GET', apiPaths.instructions, { key });
      expect(response.status, response.text).toBe(200);
      const prefs = instructionsResponseSchema
        .parse(response.json())
        .files.tak.map((file) =>
          strFromU8(
            unzipSync(Buffer.from(file.data.slice(ZIP_DATA_URL_PREFIX.length), 'base64'))[
              'server.pref'
            ]!,
          ),
        );
      const [atak, itak, tracker] = prefs as [string, string, string];
      const entry = (xml: string, group: string, key: string) =>
        xpathString(xml, `//preference[@name="${group}"]/entry[@key="${key}"]`);
      const app = 'com.atakmap.app_preferences';
      expect(entry(atak, app, 'locationTeam')).toBe('Dark Green');
      expect(entry(atak, app, 'atakRoleType')).toBe('K9');
      expect(entry(tracker, 'gov.tak.taktracker_preferences', 'role')).toBe('K9');
      // iTAK takes neither from a package; it keeps the member's own choice.
      expect(itak).not.toContain('locationTeam');
    });
  });

  describe('bulk slips', () => {
    async function bulk(json: unknown) {
      return asAdmin('POST', apiPaths.bulk, json);
    }

    async function createBatch(callsigns: string[], extra: Record<string, unknown> = {}) {
      const response = await bulk({ callsigns, ...extra });
      expect(response.status, response.text).toBe(200);
      return bulkResponseSchema.parse(response.json());
    }

    async function batch(batchId: string): Promise<BatchResponse> {
      const response = await asAdmin('GET', apiPaths.batch(batchId));
      expect(response.status, response.text).toBe(200);
      return batchResponseSchema.parse(response.json());
    }

    const stateOf = async (batchId: string, callsign: string) =>
      (await batch(batchId)).slips.find((slip) => slip.callsign === callsign)?.state;

    it('is all or nothing: one 400 names every taken, invalid and repeated callsign', async () => {
      await portal.addMember('Taken1');
      const before = await snapshotTables(db());
      const refused = await bulk({
        callsigns: ['Fresh1', 'Fresh2', 'taken1', 'Bad-Name', 'Fresh3', 'fresh2', 'x'],
        team: 'Yellow',
        role: 'RTO',
      });
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe(
        'No slips were made: 4 callsigns cannot be used: "taken1" (taken), ' +
          '"Bad-Name" (not 3 to 30 letters and digits), "fresh2" (listed twice), ' +
          '"x" (not 3 to 30 letters and digits)',
      );
      expect(await snapshotTables(db())).toBe(before);

      const check = await asAdmin('POST', apiPaths.bulkCheck, {
        callsigns: ['Fresh1', 'taken1', 'Bad-Name', 'FRESH1'],
      });
      expect(bulkCheckResponseSchema.parse(check.json()).callsigns).toEqual([
        { callsign: 'Fresh1', problem: null },
        { callsign: 'taken1', problem: 'taken' },
        { callsign: 'Bad-Name', problem: 'invalid' },
        { callsign: 'FRESH1', problem: 'duplicate' },
      ]);
      expect(await snapshotTables(db())).toBe(before);
    });

    it('makes one single-use, auto-approving slip per callsign, with the link and the preset', async () => {
      const made = await createBatch(['Slip1', 'Slip2', 'Slip3'], {
        team: 'Orange',
        role: 'Team Lead',
        valid_hours: 24,
      });
      expect(made.slips.map((slip) => slip.callsign)).toEqual(['Slip1', 'Slip2', 'Slip3']);
      expect(new Set(made.slips.map((slip) => slip.invite_code)).size).toBe(3);
      for (const slip of made.slips) {
        expect(slip.link).toBe(
          `${portal.origin('public')}/login?code=${encodeURIComponent(slip.invite_code)}`,
        );
        expect(await pool(slip.invite_code)).toMatchObject({
          max_uses: 1,
          uses: 0,
          auto_approve: true,
          team: 'Orange',
          role: 'Team Lead',
          reserved_callsign: slip.callsign,
          batch_id: made.batch_id,
          state: 'active',
        });
      }
      const hours = (Date.parse(made.expires_at) - Date.now()) / HOUR;
      expect(hours).toBeGreaterThan(23.9);
      expect(hours).toBeLessThanOrEqual(24);
      const status = await batch(made.batch_id);
      expect(status).toMatchObject({
        batch_id: made.batch_id,
        owner_cs: 'Boss1',
        team: 'Orange',
        role: 'Team Lead',
        expires_at: made.expires_at,
      });
      expect(status.slips.map((slip) => [slip.callsign, slip.state])).toEqual([
        ['Slip1', 'issued'],
        ['Slip2', 'issued'],
        ['Slip3', 'issued'],
      ]);
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        action: 'bulk.create',
        target: made.batch_id,
        detail: { slips: 3, team: 'Orange', role: 'Team Lead', valid_hours: 24 },
      });
    });

    it('lists a batch in roster order: case aside, numbers by value', async () => {
      const made = await createBatch(['Squad10', 'squad2', 'Squad1', 'Alpha'], {});
      const status = await batch(made.batch_id);
      expect(status.slips.map((slip) => slip.callsign)).toEqual([
        'Alpha',
        'Squad1',
        'squad2',
        'Squad10',
      ]);
    });

    it('follows a slip issued -> enrolled -> key -> revoked; the slip enrolls its callsign only, once', async () => {
      const made = await createBatch(['Walker1', 'Walker2'], { team: 'Teal', role: 'RTO' });
      const slip = made.slips[0]!;
      expect(await inviteCheck(slip.invite_code)).toEqual({
        invitecode_is_active: true,
        reserved_callsign: 'Walker1',
      });

      // Someone else's callsign with this slip, or this slip's callsign with another code: no.
      const wrongCallsign = await enroll('Intruder1', slip.invite_code);
      expect(wrongCallsign.status).toBe(400);
      expect(detailOf(wrongCallsign)).toBe('This invite is for another callsign');
      const plain = await createInvite();
      const squatter = await enroll('WALKER1', plain);
      expect(squatter.status).toBe(400);
      expect(detailOf(squatter)).toBe('Callsign taken');
      expect(await stateOf(made.batch_id, 'Walker1')).toBe('issued');

      const { jwt } = await enrolled('walker1', slip.invite_code);
      expect(await acceptance(jwt)).toEqual({ have_i_been_accepted: true, state: 'approved' });
      expect(await stateOf(made.batch_id, 'Walker1')).toBe('enrolled');
      expect(await presetOf('Walker1')).toMatchObject({ team: 'Teal', role: 'RTO' });
      const again = await enroll('Walker1x', slip.invite_code);
      expect(again.status).toBe(400);
      expect(detailOf(again)).toBe('Invite code used up');

      const key = await portal.api('public', 'GET', apiPaths.keyDownload('walker1'), {
        bearer: jwt,
      });
      expect(key.status).toBe(200);
      expect(await stateOf(made.batch_id, 'Walker1')).toBe('key');

      expect((await asAdmin('DELETE', apiPaths.person('Walker1'))).status).toBe(200);
      expect(await stateOf(made.batch_id, 'Walker1')).toBe('revoked');
      expect(await stateOf(made.batch_id, 'Walker2')).toBe('issued');
    });

    it('a live slip holds its callsign; void unused frees it; an expired one shows expired', async () => {
      const made = await createBatch(['Hold1', 'Hold2', 'Hold3']);
      const twice = await bulk({ callsigns: ['Other1', 'hold2'] });
      expect(twice.status).toBe(400);
      expect(detailOf(twice)).toContain('"hold2" (taken)');

      await enrolled('Hold1', made.slips[0]!.invite_code);
      await db()
        .updateTable('invite_codes')
        .set({ expires_at: Date.now() - 1 })
        .where('code', '=', made.slips[2]!.invite_code)
        .execute();
      expect(await stateOf(made.batch_id, 'Hold3')).toBe('expired');

      const voided = await asAdmin('POST', apiPaths.voidBatch(made.batch_id));
      expect(voided.status, voided.text).toBe(200);
      // Hold2 and the expired Hold3 had never been used; Hold1's slip was.
      expect(voidBatchResponseSchema.parse(voided.json())).toEqual({ voided: 2 });
      const states = (await batch(made.batch_id)).slips.map((slip) => [slip.callsign, slip.state]);
      expect(states).toEqual([
        ['Hold1', 'enrolled'],
        ['Hold2', 'void'],
        ['Hold3', 'void'],
      ]);
      const refused = await enroll('Hold2', made.slips[1]!.invite_code);
      expect(detailOf(refused)).toBe('Invite code deactivated');
      const check = await asAdmin('POST', apiPaths.bulkCheck, { callsigns: ['Hold2', 'Hold1'] });
      expect(bulkCheckResponseSchema.parse(check.json()).callsigns).toEqual([
        { callsign: 'Hold2', problem: null },
        { callsign: 'Hold1', problem: 'taken' },
      ]);
      const again = await asAdmin('POST', apiPaths.voidBatch(made.batch_id));
      expect(voidBatchResponseSchema.parse(again.json())).toEqual({ voided: 0 });
      const unknownBatch = await asAdmin('GET', apiPaths.batch('no-such-batch'));
      expect(unknownBatch.status).toBe(404);
      expect((await asAdmin('POST', apiPaths.voidBatch('no-such-batch'))).status).toBe(404);
    });

    it(`takes ${BULK_MAX_CALLSIGNS} callsigns in one request, and refuses one more (422)`, async () => {
      const callsigns = Array.from({ length: BULK_MAX_CALLSIGNS }, (_, i) => `Unit${i}`);
      const made = await createBatch(callsigns);
      expect(made.slips).toHaveLength(BULK_MAX_CALLSIGNS);
      const status = await batch(made.batch_id);
      expect(status.slips).toHaveLength(BULK_MAX_CALLSIGNS);
      expect(status.slips.every((slip) => slip.state === 'issued')).toBe(true);
      const before = await snapshotTables(db());
      const tooMany = await bulk({ callsigns: [...callsigns.map((c) => `${c}x`), 'Extra1'] });
      expect(tooMany.status).toBe(422);
      expect(await snapshotTables(db())).toBe(before);
    });

    it('racing for one callsign: two bulk calls, or a bulk call and an enrollment, leave one holder', async () => {
      const plain = await createInvite();
      for (let round = 0; round < 5; round += 1) {
        const callsign = `Contest${round}`;
        const [first, second, enrollment] = await Promise.all([
          bulk({ callsigns: [callsign, `Side${round}a`] }),
          bulk({ callsigns: [`Side${round}b`, callsign] }),
          enroll(callsign, plain),
        ]);
        const winners = [first, second, enrollment].filter((answer) => answer.status === 200);
        expect(winners, `round ${round}`).toHaveLength(1);
        const live = await db()
          .selectFrom('invite_codes')
          .select('code')
          .where(sql<string>`lower(reserved_callsign)`, '=', callsign.toLowerCase())
          .execute();
        const members = await db()
          .selectFrom('members')
          .select('callsign')
          .where('callsign', '=', callsign)
          .execute();
        expect(live.length + members.length, `round ${round}`).toBe(1);
      }
    });
  });
});
