import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acceptanceResponseSchema,
  acceptResponseSchema,
  addAdminResponseSchema,
  apiPaths,
  checkAdminCodeResponseSchema,
  checkAuthResponseSchema,
  checkInviteCodeResponseSchema,
  CODE_ALPHABET,
  enrollmentListResponseSchema,
  enrollResponseSchema,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  lockResponseSchema,
} from '@callsign/contract';
import { testEngines, type TestEngine } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { generateCode, hashCode } from '../../src/modules/auth/codes.js';
import {
  insertLoginCode,
  isLoginCodeUsable,
} from '../../src/modules/firstuser/login-code-repository.js';
import { TokenService } from '../../src/modules/auth/token-service.js';
import { createAdminCode } from '../../src/modules/firstuser/admin-code.js';
import {
  findInviteCode,
  insertInviteCode,
  type NewInviteCode,
} from '../../src/modules/invites/repository.js';
import { insertMember } from '../../src/modules/people/repository.js';
import type { ApiResponse } from '../support/api-client.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * Signing in with codes (firstuser/check-code, token/code/exchange, firstuser/add-admin) and
 * enrollment (invite check, enroll, have-i-been-accepted, list, accept, lock), through the inject
 * tier on both database engines (docs/api.md).
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const CODE = (length: number) => new RegExp(`^[${CODE_ALPHABET}]{${length}}$`);

function detailOf(response: ApiResponse): unknown {
  return errorResponseSchema.parse(response.json()).detail;
}

/** One portal per engine, with its own database, plus the helpers the tests share. */
function portalOn(engine: TestEngine, env: Record<string, string> = {}) {
  const state = {} as { portal: InjectPortal };
  /** Every code and token handed out, so the audit test can prove none was written down. */
  const secrets: string[] = [];

  portalOnScratchDatabase(
    engine,
    async (databaseEnv) =>
      (state.portal = await openInjectPortal({ env: { ...databaseEnv, ...env } })),
  );

  const db = () => state.portal.portal.database.db;
  const api = (...args: Parameters<InjectPortal['api']>) => state.portal.api(...args);

  return {
    state,
    secrets,
    db,
    api,
    async adminCode(): Promise<string> {
      const { code } = await createAdminCode(db(), { ttlMs: DAY, actor: 'test' });
      secrets.push(code);
      return code;
    },
    async invite(options: Partial<NewInviteCode> = {}): Promise<string> {
      const code = generateCode(8);
      await insertInviteCode(db(), {
        code,
        createdAt: Date.now(),
        ownerCallsign: null,
        ...options,
      });
      secrets.push(code);
      return code;
    },
    async enroll(callsign: string, inviteCode: string) {
      const response = await api('public', 'POST', apiPaths.enroll, {
        json: { callsign, invite_code: inviteCode },
      });
      if (response.status !== 200) return { response, enrolled: undefined };
      const enrolled = enrollResponseSchema.parse(response.json());
      secrets.push(enrolled.jwt, enrolled.approvecode);
      return { response, enrolled };
    },
    exchange(code: string): Promise<ApiResponse> {
      return api('public', 'POST', apiPaths.exchangeCode, { json: { code } });
    },
    jwtOf(response: ApiResponse): string {
      expect(response.status, response.text).toBe(200);
      const { jwt } = exchangeCodeResponseSchema.parse(response.json());
      secrets.push(jwt);
      return jwt;
    },
    /** Every row of every table: a refused call must leave them all as they were. */
    snapshot(): Promise<string> {
      return snapshotTables(db());
    },
    /** How many enrollments an invite code has admitted. */
    async usesOf(code: string): Promise<number | undefined> {
      return (await findInviteCode(db(), code))?.useCount;
    },
  };
}

describe.each(testEngines())('sign-in and enrollment on $name', (engine) => {
  const t = portalOn(engine, {
    // The failure budget has its own suite below; here it must not trip over deliberate failures.
    PORTAL_RATE_LIMIT_FAILURES: '100000',
  });
  const { api, db, secrets } = t;
  let admin: MemberKey;
  let plain: MemberKey;

  beforeAll(async () => {
    admin = await t.state.portal.addMember('Boss1', { roles: ['admin'] });
    plain = await t.state.portal.addMember('Plain1');
  });

  const poll = (bearer: string) => api('public', 'GET', apiPaths.acceptance, { bearer });
  const accept = (callsign: string, approvecode: string, key: MemberKey = admin) =>
    api('mtls', 'POST', apiPaths.accept, { json: { callsign, approvecode }, key });
  const lock = (callsign: string, key: MemberKey = admin) =>
    api('mtls', 'POST', apiPaths.lock, {
      json: { callsign, lock_reason: 'Locked by an admin' },
      key,
    });
  const checkCode = (code: string) =>
    api('public', 'GET', `${apiPaths.checkAdminCode}?temp_admin_code=${encodeURIComponent(code)}`);
  const checkInvite = (code: string) =>
    api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=${encodeURIComponent(code)}`);
  const issue = (scope: 'member' | 'enrollment' | 'first-admin', subject?: string) =>
    t.state.portal.portal.tokens
      .issue({ scope, ttlMs: DAY, ...(subject === undefined ? {} : { subject }) })
      .then((issued) => issued.jwt);

  async function firstAdminToken(): Promise<string> {
    return t.jwtOf(await t.exchange(await t.adminCode()));
  }

  describe('admin codes and the exchange', () => {
    it('check-code is true only for an unused, unexpired admin code, in any case', async () => {
      const code = await t.adminCode();
      const expired = generateCode(12);
      const exchangeKind = generateCode(12);
      const at = Date.now();
      await insertLoginCode(db(), {
        codeHash: hashCode(expired),
        kind: 'admin',
        subjectCallsign: null,
        createdAt: at - DAY,
        expiresAt: at - MINUTE,
      });
      await insertLoginCode(db(), {
        codeHash: hashCode(exchangeKind),
        kind: 'exchange',
        subjectCallsign: 'Boss1',
        createdAt: at,
        expiresAt: at + MINUTE,
      });

      for (const [given, ok] of [
        [code, true],
        [code.toLowerCase(), true],
        [generateCode(12), false],
        [expired, false],
        [exchangeKind, false],
      ] as const) {
        const response = await checkCode(given);
        expect(response.status).toBe(200);
        expect(checkAdminCodeResponseSchema.parse(response.json())).toEqual({ code_ok: ok });
      }
      // Checking does not use the code up.
      expect(await isLoginCodeUsable(db(), hashCode(code), Date.now())).toBe(true);
    });

    it('once an admin exists, a start-up admin code is refused; one from the CLI still works (docs/api.md)', async () => {
      // Boss1 is an admin: a code the first start printed before is dead, check and exchange alike.
      const startup = (await createAdminCode(db(), { ttlMs: DAY, actor: 'first-start' })).code;
      secrets.push(startup);
      expect(checkAdminCodeResponseSchema.parse((await checkCode(startup)).json())).toEqual({
        code_ok: false,
      });
      const refused = await t.exchange(startup);
      expect(refused.status).toBe(403);
      expect(detailOf(refused)).toBe('Unknown, used or expired code');
      // The operator's recovery: `admin-code` on the command line.
      const recovery = (await createAdminCode(db(), { ttlMs: DAY, actor: 'cli' })).code;
      secrets.push(recovery);
      expect(checkAdminCodeResponseSchema.parse((await checkCode(recovery)).json())).toEqual({
        code_ok: true,
      });
      expect(decodeJwt(t.jwtOf(await t.exchange(recovery))).scope).toBe('first-admin');
    });

    it('the first administrator: admin code, add-admin, exchange code, then an admin', async () => {
      const code = await t.adminCode();
      const firstAdmin = t.jwtOf(await t.exchange(code.toLowerCase()));
      const session = decodeJwt(firstAdmin);
      expect(session.scope).toBe('first-admin');
      expect(session).not.toHaveProperty('sub');
      expect(session.exp! - session.iat!).toBe(t.state.portal.config.firstAdminTokenTtlMs / 1000);

      // The admin code worked once.
      expect((await t.exchange(code)).status).toBe(403);
      expect(checkAdminCodeResponseSchema.parse((await checkCode(code)).json()).code_ok).toBe(
        false,
      );
      // A first-admin session is nobody yet.
      const before = await api('public', 'GET', apiPaths.checkAuthValidUser, {
        bearer: firstAdmin,
      });
      expect(before.status).toBe(403);

      const added = await api('public', 'POST', apiPaths.addAdmin, {
        json: { callsign: 'Eagle1' },
        bearer: firstAdmin,
      });
      expect(added.status, added.text).toBe(200);
      const { admin_added, jwt_exchange_code } = addAdminResponseSchema.parse(added.json());
      secrets.push(jwt_exchange_code);
      expect(admin_added).toBe(true);
      expect(jwt_exchange_code).toMatch(CODE(12));
      const stored = await db()
        .selectFrom('login_codes')
        .selectAll()
        .where('subject_callsign', '=', 'Eagle1')
        .executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ code_hash: hashCode(jwt_exchange_code), kind: 'exchange' });
      expect(stored.expires_at - stored.created_at).toBe(t.state.portal.config.exchangeCodeTtlMs);
      expect(JSON.stringify(stored)).not.toContain(jwt_exchange_code);

      // The first-admin session worked once, and the exchange code is not an admin code.
      const again = await api('public', 'POST', apiPaths.addAdmin, {
        json: { callsign: 'Eagle2' },
        bearer: firstAdmin,
      });
      expect(again.status).toBe(403);
      expect(detailOf(again)).toBe('Token already used');
      expect(
        checkAdminCodeResponseSchema.parse((await checkCode(jwt_exchange_code)).json()),
      ).toEqual({ code_ok: false });

      const memberJwt = t.jwtOf(await t.exchange(jwt_exchange_code));
      const claims = decodeJwt(memberJwt);
      expect(claims).toMatchObject({ scope: 'member', sub: 'Eagle1' });
      expect(claims.exp! - claims.iat!).toBe(t.state.portal.config.memberTokenTtlMs / 1000);
      expect((await t.exchange(jwt_exchange_code)).status).toBe(403);

      const isAdmin = await api('public', 'GET', apiPaths.checkAuthAdmin, { bearer: memberJwt });
      expect(isAdmin.status).toBe(200);
      expect(checkAuthResponseSchema.parse(isAdmin.json())).toMatchObject({
        type: 'jwt',
        userid: 'Eagle1',
      });
      const member = await db()
        .selectFrom('members')
        .selectAll()
        .where('callsign', '=', 'Eagle1')
        .executeTakeFirstOrThrow();
      expect(member).toMatchObject({ status: 'active', invite_code: null });
    });

    it('exchange answers 403 to an unknown, used or expired code, and audits it', async () => {
      const expired = generateCode(12);
      const at = Date.now();
      await insertLoginCode(db(), {
        codeHash: hashCode(expired),
        kind: 'exchange',
        subjectCallsign: 'Boss1',
        createdAt: at - 10 * MINUTE,
        expiresAt: at - 5 * MINUTE,
      });
      const used = await t.adminCode();
      t.jwtOf(await t.exchange(used));
      const failuresBefore = (await listRecentAuditEvents(db(), 1000)).filter(
        (event) => event.action === 'sign-in' && event.outcome === 'failure',
      ).length;

      for (const code of [generateCode(12), used, expired]) {
        const response = await t.exchange(code);
        expect(response.status).toBe(403);
        expect(detailOf(response)).toBe('Unknown, used or expired code');
      }
      const failures = (await listRecentAuditEvents(db(), 1000)).filter(
        (event) => event.action === 'sign-in' && event.outcome === 'failure',
      );
      expect(failures).toHaveLength(failuresBefore + 3);
      expect(failures[0]).toMatchObject({ actor: null, target: null, clientAddress: '127.0.0.1' });
    });

    it('add-admin takes a first-admin JWT and nothing else', async () => {
      const stale = await TokenService.open(
        t.state.portal.config.caDir,
        () => new Date(Date.now() - DAY),
      );
      const expired = (await stale.issue({ scope: 'first-admin', ttlMs: MINUTE })).jwt;
      const add = (options: { bearer?: string; key?: MemberKey }) =>
        api(options.key ? 'mtls' : 'public', 'POST', apiPaths.addAdmin, {
          json: { callsign: 'Intruder1' },
          ...options,
        });
      const before = await t.snapshot();

      expect((await add({})).status).toBe(403);
      expect((await add({ bearer: await issue('member', 'Boss1') })).status).toBe(403);
      expect((await add({ bearer: await issue('enrollment', 'Boss1') })).status).toBe(403);
      expect((await add({ bearer: expired })).status).toBe(403);
      expect((await add({ key: admin })).status).toBe(403);
      expect(await t.snapshot()).toEqual(before);
    });

    it('add-admin on a taken callsign is 400, writes nothing, and leaves the token unspent', async () => {
      await insertMember(db(), {
        callsign: 'Gone1',
        status: 'revoked',
        inviteCode: null,
        roles: [],
        at: Date.now(),
      });
      const firstAdmin = await firstAdminToken();
      const before = await t.snapshot();

      for (const callsign of ['BOSS1', 'boss1', 'gone1']) {
        const response = await api('public', 'POST', apiPaths.addAdmin, {
          json: { callsign },
          bearer: firstAdmin,
        });
        expect(response.status).toBe(400);
        expect(detailOf(response)).toBe('Callsign taken');
      }
      expect(await t.snapshot()).toEqual(before);

      const added = await api('public', 'POST', apiPaths.addAdmin, {
        json: { callsign: 'Falcon1' },
        bearer: firstAdmin,
      });
      expect(added.status).toBe(200);
      secrets.push(addAdminResponseSchema.parse(added.json()).jwt_exchange_code);
    });

    it('one first-admin JWT used 5 times at once adds exactly one admin', async () => {
      const firstAdmin = await firstAdminToken();
      const responses = await Promise.all(
        ['Race1', 'Race2', 'Race3', 'Race4', 'Race5'].map((callsign) =>
          api('public', 'POST', apiPaths.addAdmin, { json: { callsign }, bearer: firstAdmin }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403]);
      const raced = await db()
        .selectFrom('members')
        .select('callsign')
        .where('callsign', 'like', 'Race%')
        .execute();
      expect(raced).toHaveLength(1);
      for (const response of responses.filter((r) => r.status === 200)) {
        secrets.push(addAdminResponseSchema.parse(response.json()).jwt_exchange_code);
      }
    });
  });

  describe('enrollment', () => {
    it('the invite check is true only for a code that admits people', async () => {
      const usable = await t.invite({ maxUses: 5, expiresAt: Date.now() + DAY });
      const unlimited = await t.invite();
      const deleted = await t.invite({ label: 'deleted' });
      const deactivated = await t.invite();
      const expired = await t.invite({ expiresAt: Date.now() - MINUTE });
      const usedUp = await t.invite({ maxUses: 1 });
      const at = Date.now();
      await db()
        .updateTable('invite_codes')
        .set({ deleted_at: at })
        .where('code', '=', deleted)
        .execute();
      await db()
        .updateTable('invite_codes')
        .set({ deactivated_at: at })
        .where('code', '=', deactivated)
        .execute();
      await db()
        .updateTable('invite_codes')
        .set({ use_count: 1 })
        .where('code', '=', usedUp)
        .execute();

      // A code that exists but admits nobody says why; an unknown or deleted one says nothing.
      for (const [code, active, state] of [
        [usable, true, undefined],
        [usable.toLowerCase(), true, undefined],
        [unlimited, true, undefined],
        [generateCode(8), false, undefined],
        [deleted, false, undefined],
        [deactivated, false, 'deactivated'],
        [expired, false, 'expired'],
        [usedUp, false, 'used-up'],
      ] as const) {
        const response = await checkInvite(code);
        expect(response.status).toBe(200);
        expect(checkInviteCodeResponseSchema.parse(response.json())).toEqual({
          invitecode_is_active: active,
          ...(state === undefined ? {} : { invitecode_state: state }),
        });
      }
    });

    it('a member: enroll, wait, accepted by an admin on the mTLS face, then a valid user', async () => {
      const code = await t.invite({ maxUses: 10 });
      const { response, enrolled } = await t.enroll('Ranger7', code.toLowerCase());
      expect(response.status, response.text).toBe(200);
      expect(enrolled!.callsign).toBe('Ranger7');
      expect(enrolled!.approvecode).toMatch(CODE(8));
      const claims = decodeJwt(enrolled!.jwt);
      expect(claims).toMatchObject({ scope: 'enrollment', sub: 'Ranger7' });
      expect(claims.exp! - claims.iat!).toBe(
        (30 * DAY + t.state.portal.config.enrollmentGraceMs) / 1000,
      );
      const jwt = enrolled!.jwt;

      const waiting = await poll(jwt);
      expect(waiting.status).toBe(200);
      expect(acceptanceResponseSchema.parse(waiting.json())).toEqual({
        have_i_been_accepted: false,
        state: 'pending',
      });
      // A pending enrollee is not a valid user.
      expect(
        (await api('public', 'GET', apiPaths.checkAuthValidUser, { bearer: jwt })).status,
      ).toBe(403);
      expect(await t.usesOf(code)).toBe(1);
      expect(
        await db()
          .selectFrom('members')
          .selectAll()
          .where('callsign', '=', 'Ranger7')
          .executeTakeFirst(),
      ).toMatchObject({ status: 'pending', invite_code: code });

      const listed = await api('mtls', 'GET', apiPaths.enrollmentList, { key: admin });
      expect(listed.status).toBe(200);
      expect(enrollmentListResponseSchema.parse(listed.json()).callsign_list).toContainEqual({
        callsign: 'Ranger7',
        approvecode: '',
        state: 0,
      });
      expect(listed.text).not.toContain(enrolled!.approvecode);

      const accepted = await accept('ranger7', ` ${enrolled!.approvecode.toLowerCase()} `);
      expect(accepted.status, accepted.text).toBe(200);
      expect(acceptResponseSchema.parse(accepted.json())).toEqual({
        success: true,
        detail: 'Ranger7 is now a member',
      });

      expect(acceptanceResponseSchema.parse((await poll(jwt)).json())).toEqual({
        have_i_been_accepted: true,
        state: 'approved',
      });
      const valid = await api('public', 'GET', apiPaths.checkAuthValidUser, { bearer: jwt });
      expect(valid.status).toBe(200);
      expect(checkAuthResponseSchema.parse(valid.json())).toMatchObject({
        type: 'jwt',
        userid: 'Ranger7',
      });
      const enrollment = await db()
        .selectFrom('enrollments')
        .selectAll()
        .where('callsign', '=', 'Ranger7')
        .executeTakeFirstOrThrow();
      expect(enrollment).toMatchObject({ state: 1, decided_by: 'Boss1', lock_reason: null });
      expect(enrollment.decided_at).toBeGreaterThanOrEqual(enrollment.created_at);
      const listedAfter = enrollmentListResponseSchema.parse(
        (await api('mtls', 'GET', apiPaths.enrollmentList, { key: admin })).json(),
      );
      expect(listedAfter.callsign_list).toContainEqual({
        callsign: 'Ranger7',
        approvecode: '',
        state: 1,
      });

      // Decided for good.
      expect((await accept('Ranger7', enrolled!.approvecode)).status).toBe(409);
      expect((await lock('Ranger7')).status).toBe(409);
    });

    it('enroll refuses unknown and deleted codes (404) and unusable ones (400), writing nothing', async () => {
      const deleted = await t.invite();
      const deactivated = await t.invite();
      const expired = await t.invite({ expiresAt: Date.now() - MINUTE });
      const usedUp = await t.invite({ maxUses: 1 });
      expect((await t.enroll('Spent1', usedUp)).response.status).toBe(200);
      const at = Date.now();
      await db()
        .updateTable('invite_codes')
        .set({ deleted_at: at })
        .where('code', '=', deleted)
        .execute();
      await db()
        .updateTable('invite_codes')
        .set({ deactivated_at: at })
        .where('code', '=', deactivated)
        .execute();
      const before = await t.snapshot();

      for (const [code, status, detail] of [
        [generateCode(8), 404, 'Unknown invite code'],
        [deleted, 404, 'Unknown invite code'],
        [deactivated, 400, 'Invite code deactivated'],
        [expired, 400, 'Invite code expired'],
        [usedUp, 400, 'Invite code used up'],
      ] as const) {
        const { response } = await t.enroll('Hopeful1', code);
        expect(response.status).toBe(status);
        expect(detailOf(response)).toBe(detail);
      }
      expect(await t.snapshot()).toEqual(before);
    });

    it('enroll refuses a callsign taken in any case and any state, revoked included', async () => {
      const code = await t.invite();
      await insertMember(db(), {
        callsign: 'Ghost1',
        status: 'revoked',
        inviteCode: null,
        roles: [],
        at: Date.now(),
      });
      const before = await t.snapshot();

      for (const callsign of ['BOSS1', 'plain1', 'GHOST1', 'ranger7']) {
        const { response } = await t.enroll(callsign, code);
        expect(response.status).toBe(400);
        expect(detailOf(response)).toBe('Callsign taken');
      }
      // Nothing written: the invite code's use count and the members are as they were.
      expect(await t.snapshot()).toEqual(before);
      expect(await t.usesOf(code)).toBe(0);
    });

    it('have-i-been-accepted tells a revoked member the truth, approved or still pending', async () => {
      const code = await t.invite();
      const { enrolled: approved } = await t.enroll('Turned1', code);
      const { enrolled: waiting } = await t.enroll('Turned2', code);
      expect((await accept('Turned1', approved!.approvecode)).status).toBe(200);
      expect(acceptanceResponseSchema.parse((await poll(approved!.jwt)).json())).toEqual({
        have_i_been_accepted: true,
        state: 'approved',
      });

      for (const callsign of ['Turned1', 'Turned2']) {
        const revoked = await api('mtls', 'DELETE', apiPaths.person(callsign), { key: admin });
        expect(revoked.status, revoked.text).toBe(200);
      }

      for (const jwt of [approved!.jwt, waiting!.jwt]) {
        const response = await poll(jwt);
        expect(response.status, response.text).toBe(200);
        expect(acceptanceResponseSchema.parse(response.json())).toEqual({
          have_i_been_accepted: false,
          state: 'revoked',
        });
      }
      // And the token opens nothing else.
      expect(
        (await api('public', 'GET', apiPaths.keyDownload('Turned1'), { bearer: approved!.jwt }))
          .status,
      ).toBe(403);
    });

    it('stores the approval code only as its hash; the enrollee sees it once', async () => {
      const code = await t.invite();
      const { enrolled } = await t.enroll('Hashed1', code);
      const row = await db()
        .selectFrom('enrollments')
        .selectAll()
        .where('callsign', '=', 'Hashed1')
        .executeTakeFirstOrThrow();
      expect(row.approval_code_hash).toBe(hashCode(enrolled!.approvecode));
      expect(JSON.stringify(row)).not.toContain(enrolled!.approvecode);
      // Compared by hash, in any case and with the spaces a person types around it.
      const accepted = await accept('Hashed1', ` ${enrolled!.approvecode.toLowerCase()} `);
      expect(accepted.status, accepted.text).toBe(200);
    });

    it('have-i-been-accepted: 403 without identity, 404 for a caller without enrollment', async () => {
      expect((await api('public', 'GET', apiPaths.acceptance)).status).toBe(403);
      expect((await api('mtls', 'GET', apiPaths.acceptance, { key: admin })).status).toBe(404);
      expect((await poll(await issue('member', 'Boss1'))).status).toBe(404);
      expect((await poll(await issue('first-admin'))).status).toBe(404);
    });

    it('the list is for admins: every enrollment, oldest first, never an approval code', async () => {
      const code = await t.invite();
      for (const callsign of ['Zebra9', 'Apple9']) {
        expect((await t.enroll(callsign, code)).response.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const { enrolled } = await t.enroll('Mango9', code);

      expect((await api('public', 'GET', apiPaths.enrollmentList)).status).toBe(403);
      expect((await api('mtls', 'GET', apiPaths.enrollmentList, { key: plain })).status).toBe(403);
      const asEnrollee = await api('public', 'GET', apiPaths.enrollmentList, {
        bearer: enrolled!.jwt,
      });
      expect(asEnrollee.status).toBe(403);

      const listed = await api('mtls', 'GET', apiPaths.enrollmentList, { key: admin });
      expect(listed.status).toBe(200);
      const list = enrollmentListResponseSchema.parse(listed.json()).callsign_list;
      const ours = list.filter((entry) => entry.callsign.endsWith('9')).map((e) => e.callsign);
      expect(ours).toEqual(['Zebra9', 'Apple9', 'Mango9']);
      const rows = await db()
        .selectFrom('enrollments')
        .select(['callsign', 'created_at', 'approval_code_hash'])
        .execute();
      const createdAt = new Map(rows.map((row) => [row.callsign, row.created_at]));
      const times = list.map((entry) => createdAt.get(entry.callsign)!);
      expect(list).toHaveLength(rows.length);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // The schema allows only "" as approvecode; no stored approval code shows anywhere either.
      for (const row of rows) expect(listed.text).not.toContain(row.approval_code_hash);
    });

    it('accept: 403 for non-admins, 404 unknown, 403 wrong code changing nothing but the audit log', async () => {
      const code = await t.invite();
      const { enrolled } = await t.enroll('Wrong1', code);
      const right = enrolled!.approvecode;
      const before = await snapshotTables(db(), { except: ['audit_events'] });
      const eventsBefore = (await listRecentAuditEvents(db(), 10_000)).length;

      expect(
        (
          await api('public', 'POST', apiPaths.accept, {
            json: { callsign: 'Wrong1', approvecode: right },
          })
        ).status,
      ).toBe(403);
      expect((await accept('Wrong1', right, plain)).status).toBe(403);
      const asSelf = await api('public', 'POST', apiPaths.accept, {
        json: { callsign: 'Wrong1', approvecode: right },
        bearer: enrolled!.jwt,
      });
      expect(asSelf.status).toBe(403);
      expect((await accept('Nobody1', right)).status).toBe(404);
      // An active member has no enrollment either.
      expect((await accept('Plain1', right)).status).toBe(404);
      const wrong = await accept('Wrong1', right === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA');
      expect(wrong.status).toBe(403);
      expect(detailOf(wrong)).toBe('Wrong approval code');
      expect((await accept('Wrong1', '')).status).toBe(403);
      expect(await snapshotTables(db(), { except: ['audit_events'] })).toEqual(before);
      // The two wrong approval codes are audited as failed accepts, and nothing else was.
      const events = await listRecentAuditEvents(db(), 10_000);
      expect(events.length - eventsBefore).toBe(2);
      for (const event of events.slice(0, 2)) {
        expect(event).toMatchObject({
          action: 'enrollment.accept',
          outcome: 'failure',
          target: 'Wrong1',
          detail: { reason: 'wrong approval code' },
        });
      }
      expect(acceptanceResponseSchema.parse((await poll(enrolled!.jwt)).json()).state).toBe(
        'pending',
      );
    });

    it('lock rejects a pending enrollment for good; the callsign stays taken', async () => {
      const code = await t.invite();
      const { enrolled } = await t.enroll('Rogue1', code);
      expect((await lock('Rogue1', plain)).status).toBe(403);
      expect((await lock('Nobody1')).status).toBe(404);

      const locked = await lock('ROGUE1');
      expect(locked.status, locked.text).toBe(200);
      expect(lockResponseSchema.parse(locked.json())).toEqual({ success: true });
      expect(acceptanceResponseSchema.parse((await poll(enrolled!.jwt)).json())).toEqual({
        have_i_been_accepted: false,
        state: 'rejected',
      });
      const enrollment = await db()
        .selectFrom('enrollments')
        .selectAll()
        .where('callsign', '=', 'Rogue1')
        .executeTakeFirstOrThrow();
      expect(enrollment).toMatchObject({
        state: 2,
        decided_by: 'Boss1',
        lock_reason: 'Locked by an admin',
      });
      const member = await db()
        .selectFrom('members')
        .selectAll()
        .where('callsign', '=', 'Rogue1')
        .executeTakeFirstOrThrow();
      expect(member.status).toBe('rejected');
      const invalid = await api('public', 'GET', apiPaths.checkAuthValidUser, {
        bearer: enrolled!.jwt,
      });
      expect(invalid.status).toBe(403);

      expect((await lock('Rogue1')).status).toBe(409);
      const late = await accept('Rogue1', enrolled!.approvecode);
      expect(late.status).toBe(409);
      expect(detailOf(late)).toBe('The enrollment is not pending');
      expect((await t.enroll('rogue1', code)).response.status).toBe(400);
    });

    it('an enrollment token lapses after the grace period, and at once without its enrollment', async () => {
      const code = await t.invite();
      const { enrolled: late } = await t.enroll('Late1', code);
      const { enrolled: gone } = await t.enroll('Gone2', code);
      expect((await accept('Late1', late!.approvecode)).status).toBe(200);
      expect((await poll(late!.jwt)).status).toBe(200);

      // Move the decision back in time rather than the clock forward.
      const grace = t.state.portal.config.enrollmentGraceMs;
      const decidedAt = async (at: number) =>
        db()
          .updateTable('enrollments')
          .set({ decided_at: at })
          .where('callsign', '=', 'Late1')
          .execute();
      await decidedAt(Date.now() - grace + MINUTE);
      expect((await poll(late!.jwt)).status).toBe(200);
      expect(
        (await api('public', 'GET', apiPaths.checkAuthValidUser, { bearer: late!.jwt })).status,
      ).toBe(200);
      await decidedAt(Date.now() - grace - 1000);
      expect((await poll(late!.jwt)).status).toBe(403);
      expect(
        (await api('public', 'GET', apiPaths.checkAuthValidUser, { bearer: late!.jwt })).status,
      ).toBe(403);
      expect(
        (await api('public', 'GET', apiPaths.checkAuthAny, { bearer: late!.jwt })).status,
      ).toBe(403);

      expect((await poll(gone!.jwt)).status).toBe(200);
      await db().deleteFrom('enrollments').where('callsign', '=', 'Gone2').execute();
      expect((await poll(gone!.jwt)).status).toBe(403);
    });

    it('answers malformed input with 422 and a list of issues', async () => {
      const code = await t.invite();
      const before = await t.snapshot();
      const calls: [string, string, unknown][] = [
        ['POST', apiPaths.enroll, { callsign: 'ab', invite_code: code }],
        ['POST', apiPaths.enroll, { callsign: 'bad-callsign', invite_code: code }],
        ['POST', apiPaths.enroll, { callsign: 'A'.repeat(31), invite_code: code }],
        ['POST', apiPaths.enroll, { callsign: 'Valid1' }],
        ['POST', apiPaths.enroll, { callsign: 'Valid1', invite_code: code, admin: true }],
        ['POST', apiPaths.enroll, { callsign: 'Valid1', invite_code: `${code}-1` }],
        ['POST', apiPaths.exchangeCode, { code: 12345678 }],
        ['POST', apiPaths.exchangeCode, {}],
        ['POST', apiPaths.addAdmin, { callsign: 'x y z' }],
      ];
      for (const [method, path, json] of calls) {
        const response = await api('public', method, path, { json });
        expect(response.status, `${path} ${JSON.stringify(json)}`).toBe(422);
        expect(Array.isArray(detailOf(response))).toBe(true);
      }
      for (const path of [
        apiPaths.checkAdminCode,
        `${apiPaths.checkAdminCode}?temp_admin_code=ABC-DEF`,
        `${apiPaths.checkAdminCode}?temp_admin_code=ABCDEFGH&extra=1`,
        apiPaths.checkInviteCode,
      ]) {
        expect((await api('public', 'GET', path)).status, path).toBe(422);
      }
      for (const json of [
        { callsign: 'Valid1', approvecode: 'X', extra: 1 },
        { callsign: 'Valid1', approvecode: 7 },
      ]) {
        expect((await api('mtls', 'POST', apiPaths.accept, { json, key: admin })).status).toBe(422);
      }
      const longReason = { callsign: 'Valid1', lock_reason: 'x'.repeat(501) };
      expect(
        (await api('mtls', 'POST', apiPaths.lock, { json: longReason, key: admin })).status,
      ).toBe(422);
      const broken = await api('public', 'POST', apiPaths.enroll, {
        raw: '{"callsign":',
        contentType: 'application/json',
      });
      expect(broken.status).toBe(422);
      expect(await t.snapshot()).toEqual(before);
    });
  });

  describe('races', () => {
    it('20 enrollments racing for one callsign in mixed case: one member, the rest 400', async () => {
      const code = await t.invite();
      const spellings = ['Racer1', 'RACER1', 'racer1', 'rAcEr1'];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.enroll(spellings[i % spellings.length]!, code)),
      );
      const statuses = results.map((r) => r.response.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(19);
      const members = await db()
        .selectFrom('members')
        .select('callsign')
        .where((eb) => eb(eb.fn('lower', ['callsign']), '=', 'racer1'))
        .execute();
      expect(members).toHaveLength(1);
      expect(await t.usesOf(code)).toBe(1);
      const enrollments = await db()
        .selectFrom('enrollments')
        .select('callsign')
        .where((eb) => eb(eb.fn('lower', ['callsign']), '=', 'racer1'))
        .execute();
      expect(enrollments).toEqual(members);
    });

    it('two admins accepting one enrollment at once: one 200, one 409', async () => {
      const second = await t.state.portal.addMember('Boss2', { roles: ['admin'] });
      const code = await t.invite();
      const { enrolled } = await t.enroll('Twice1', code);
      const responses = await Promise.all([
        accept('Twice1', enrolled!.approvecode),
        accept('Twice1', enrolled!.approvecode, second),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const decisions = (await listRecentAuditEvents(db(), 1000)).filter(
        (event) => event.action === 'enrollment.accept' && event.target === 'Twice1',
      );
      expect(decisions).toHaveLength(1);
    });

    it('an accept racing a lock: exactly one decision', async () => {
      const code = await t.invite();
      const { enrolled } = await t.enroll('Split1', code);
      const responses = await Promise.all([
        accept('Split1', enrolled!.approvecode),
        lock('Split1'),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const member = await db()
        .selectFrom('members')
        .selectAll()
        .where('callsign', '=', 'Split1')
        .executeTakeFirstOrThrow();
      const enrollment = await db()
        .selectFrom('enrollments')
        .selectAll()
        .where('callsign', '=', 'Split1')
        .executeTakeFirstOrThrow();
      expect([
        [1, 'active'],
        [2, 'rejected'],
      ]).toContainEqual([enrollment.state, member.status]);
    });
  });

  describe('the audit log', () => {
    it('records sign-ins and admin actions, and never a code or a token', async () => {
      // Runs last in this file's order, so the log holds every call the tests above made.
      const code = await t.invite();
      const { enrolled } = await t.enroll('Audit1', code);
      await accept('Audit1', enrolled!.approvecode);
      const events = await listRecentAuditEvents(db(), 10_000);
      const seen = (action: string, outcome: 'success' | 'failure', target?: string) =>
        events.some(
          (event) =>
            event.action === action &&
            event.outcome === outcome &&
            (target === undefined || event.target === target),
        );

      expect(seen('sign-in', 'success')).toBe(true);
      expect(seen('sign-in', 'success', 'Eagle1')).toBe(true);
      expect(seen('sign-in', 'failure')).toBe(true);
      expect(seen('member.add-admin', 'success', 'Eagle1')).toBe(true);
      expect(seen('enrollment.create', 'success', 'Audit1')).toBe(true);
      expect(seen('enrollment.accept', 'success', 'Audit1')).toBe(true);
      expect(seen('enrollment.lock', 'success', 'Rogue1')).toBe(true);
      const accepted = events.find(
        (e) => e.action === 'enrollment.accept' && e.target === 'Audit1',
      );
      expect(accepted).toMatchObject({ actor: 'Boss1', clientAddress: '127.0.0.1' });

      expect(secrets.length).toBeGreaterThan(20);
      const written = JSON.stringify(events).toUpperCase();
      for (const secret of secrets) {
        expect(written).not.toContain(secret.toUpperCase());
      }
    });
  });
});

describe.each(testEngines())('the failure budget on $name', (engine) => {
  // A small budget, so that one of each guarded call spends it: 10 failures in 10 minutes.
  const t = portalOn(engine, { PORTAL_RATE_LIMIT_FAILURES: '10' });
  const { api, db } = t;

  it('the 11th failure within the window is 429 with retry-after on every guarded call', async () => {
    const admin = await t.state.portal.addMember('Boss1', { roles: ['admin'] });
    const code = await t.invite();
    const { enrolled } = await t.enroll('Waiting1', code);
    const adminCode = await t.adminCode();
    const accept = (approvecode: string, callsign = 'Waiting1') =>
      api('mtls', 'POST', apiPaths.accept, { json: { callsign, approvecode }, key: admin });
    const wrong = enrolled!.approvecode === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';

    // Refusals that are not guesses cost nothing: an admin's 404, malformed input.
    for (let i = 0; i < 5; i += 1) {
      expect((await accept(enrolled!.approvecode, 'Nobody1')).status).toBe(404);
      expect((await api('public', 'POST', apiPaths.exchangeCode, { json: {} })).status).toBe(422);
    }
    // Ten guesses of every kind, each answered as usual.
    const guesses: [() => Promise<ApiResponse>, number][] = [
      [() => api('public', 'GET', `${apiPaths.checkAdminCode}?temp_admin_code=WRONG2345678`), 200],
      [() => api('public', 'GET', `${apiPaths.checkAdminCode}?temp_admin_code=WRONG2345679`), 200],
      [() => api('public', 'GET', `${apiPaths.checkAdminCode}?temp_admin_code=WRONG2345670`), 200],
      [() => api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=WRONG234`), 200],
      [() => api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=WRONG235`), 200],
      [() => t.exchange('WRONG2345678'), 403],
      [() => t.exchange('WRONG2345679'), 403],
      [() => t.enroll('Waiting1', code).then((r) => r.response), 400],
      [() => t.enroll('Other1', 'WRONG234').then((r) => r.response), 404],
      [() => accept(wrong), 403],
    ];
    for (const [guess, status] of guesses) {
      expect((await guess()).status).toBe(status);
    }
    const before = await t.snapshot();

    const refused = [
      api('public', 'GET', `${apiPaths.checkAdminCode}?temp_admin_code=${adminCode}`),
      api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=${code}`),
      t.exchange(adminCode),
      t.enroll('Newcomer1', code).then((r) => r.response),
      accept(enrolled!.approvecode),
    ];
    for (const response of await Promise.all(refused)) {
      expect(response.status).toBe(429);
      const retryAfter = Number(response.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(9 * 60);
      expect(retryAfter).toBeLessThanOrEqual(10 * 60);
      expect(detailOf(response)).toBe('Too many attempts; try again later');
    }
    // Refused before any work: the admin code is still usable and nothing was written.
    expect(await isLoginCodeUsable(db(), hashCode(adminCode), Date.now())).toBe(true);
    expect(await t.snapshot()).toEqual(before);

    // Calls outside the budget still answer.
    expect((await api('public', 'GET', apiPaths.healthcheck)).status).toBe(200);
    const polled = await api('public', 'GET', apiPaths.acceptance, { bearer: enrolled!.jwt });
    expect(polled.status).toBe(200);
  });
});

describe.each(testEngines())('a roomful behind one address on $name', (engine) => {
  // The default budget (docs/api.md#the-failure-budgets-arithmetic): 120 failures in 10 minutes per address.
  const t = portalOn(engine);
  const { api } = t;

  it('50 people each mistyping their invite code twice, then entering it, all enroll', async () => {
    const codes = await Promise.all(Array.from({ length: 50 }, () => t.invite()));
    const check = async (invitecode: string) => {
      const response = await api(
        'public',
        'GET',
        `${apiPaths.checkInviteCode}?invitecode=${invitecode}`,
      );
      return response.status === 200
        ? checkInviteCodeResponseSchema.parse(response.json()).invitecode_is_active
        : response.status;
    };
    // Two typos each, all at once: the last character mistyped as another of the alphabet.
    const typos = codes.flatMap((code) => {
      const others = CODE_ALPHABET.replace(code.slice(-1), '');
      return [0, 1].map((n) => `${code.slice(0, -1)}${others.charAt(n)}`);
    });
    expect(await Promise.all(typos.map(check))).toEqual(typos.map(() => false));
    // Then the right codes, ten phones at the same moment: an attempt counts while it is being
    // checked, so 100 failures leave room for 20 at once (docs/api.md, the arithmetic).
    for (let first = 0; first < codes.length; first += 10) {
      const wave = codes.slice(first, first + 10);
      const outcomes = await Promise.all(
        wave.map(async (code, index) => {
          const valid = await check(code);
          const { response } = await t.enroll(`Room${String(first + index)}`, code);
          return [valid, response.status];
        }),
      );
      expect(outcomes).toEqual(wave.map(() => [true, 200]));
    }
    expect(await Promise.all(codes.map((code) => t.usesOf(code)))).toEqual(codes.map(() => 1));
  });
});

describe.each(testEngines())('300 simultaneous wrong guesses on $name', (engine) => {
  // The default budget: 120 failures in 10 minutes from one address. Issue 13: on PostgreSQL
  // all of a burst were evaluated, because the budget was checked, then spent, in two steps.
  const t = portalOn(engine);
  const { api, db } = t;
  const BURST = 300;
  const BUDGET = 120;

  const guesses: [string, (index: number) => Promise<ApiResponse>][] = [
    ['token/code/exchange', (i) => t.exchange(`WRONG${String(i).padStart(7, '2')}`)],
    [
      'firstuser/check-code',
      (i) =>
        api(
          'public',
          'GET',
          `${apiPaths.checkAdminCode}?temp_admin_code=WRONG${String(i).padStart(7, '2')}`,
        ),
    ],
    [
      'enrollment/invitecode',
      (i) =>
        api(
          'public',
          'GET',
          `${apiPaths.checkInviteCode}?invitecode=WRONG${String(i).padStart(3, '2')}`,
        ),
    ],
  ];

  it.each(guesses)(
    '%s evaluates at most the budget; the rest get 429 with Retry-After',
    async (call, guess) => {
      await db().deleteFrom('failure_windows').execute();
      const signInFailures = async () =>
        (await listRecentAuditEvents(db(), 10_000)).filter(
          (event) => event.action === 'sign-in' && event.outcome === 'failure',
        ).length;
      const auditedBefore = await signInFailures();

      const responses = await Promise.all(Array.from({ length: BURST }, (_, i) => guess(i)));

      const refused = responses.filter((response) => response.status === 429);
      const evaluated = responses.filter((response) => response.status !== 429);
      expect(evaluated.length).toBeGreaterThan(0);
      expect(evaluated.length).toBeLessThanOrEqual(BUDGET);
      expect(refused).toHaveLength(BURST - evaluated.length);
      expect(refused.length).toBeGreaterThanOrEqual(BURST - BUDGET);
      for (const response of refused) {
        const retryAfter = Number(response.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(10 * 60);
      }
      for (const response of evaluated) expect([200, 403]).toContain(response.status);
      const window = await db()
        .selectFrom('failure_windows')
        .select('failures')
        .executeTakeFirstOrThrow();
      expect(window.failures).toBe(evaluated.length);
      // Only evaluated exchanges reached the code check (each refused one is audited there).
      const audited = (await signInFailures()) - auditedBefore;
      expect(audited).toBe(call === 'token/code/exchange' ? evaluated.length : 0);
    },
  );
});
