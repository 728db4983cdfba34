import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CODE_ALPHABET,
  apiPaths,
  checkAuthResponseSchema,
  createInviteResponseSchema,
  deleteInviteResponseSchema,
  errorResponseSchema,
  inviteToggleResponseSchema,
  peopleListResponseSchema,
  poolsResponseSchema,
  revokePersonResponseSchema,
  roleChangeResponseSchema,
} from '@callsign/contract';
import { normalizeSerial } from '../../src/ca/serial.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { hashCode } from '../../src/modules/auth/codes.js';
import { TokenService } from '../../src/modules/auth/token-service.js';
import { findCertificateBySerial } from '../../src/modules/certificates/repository.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import {
  countActiveAdmins,
  findMemberByCallsign,
  insertMember,
} from '../../src/modules/people/repository.js';
import { revokeMember } from '../../src/commands/revoke-member.js';
import type { ApiRequestOptions, ApiResponse, Face } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase, type DatabaseEnv } from '../support/portal-on-engine.js';
import { run } from '../support/processes.js';
import { snapshotTables } from '../support/table-snapshot.js';

// The admin calls (people, promote/demote, invite codes) and the key download,
// on both faces through the inject tier, on every database engine.

const VALID = apiPaths.checkAuthValidUser;
const ADMIN = apiPaths.checkAuthAdmin;
const INVITE_CODE = new RegExp(`^[${CODE_ALPHABET}]{8}$`);

/** The portal, its first admin, and helpers every describe below shares. */
class Harness {
  constructor(
    readonly portal: InjectPortal,
    readonly boss: MemberKey,
    readonly bossJwt: string,
  ) {}

  static async start(env: DatabaseEnv, bossCallsign: string): Promise<Harness> {
    const portal = await openInjectPortal({ env });
    const boss = await portal.addMember(bossCallsign, { roles: ['admin'] });
    const token = await portal.portal.tokens.issue({
      scope: 'member',
      subject: bossCallsign,
      ttlMs: 600_000,
    });
    return new Harness(portal, boss, token.jwt);
  }

  get db() {
    return this.portal.portal.database.db;
  }

  async jwt(callsign: string, scope: 'member' | 'enrollment' = 'member'): Promise<string> {
    const issued = await this.portal.portal.tokens.issue({
      scope,
      subject: callsign,
      ttlMs: 60_000,
    });
    return issued.jwt;
  }

  /** A token that was valid for a minute an hour ago. */
  async expiredJwt(callsign: string): Promise<string> {
    const past = await TokenService.open(
      this.portal.config.caDir,
      () => new Date(Date.now() - 3_600_000),
    );
    return (await past.issue({ scope: 'member', subject: callsign, ttlMs: 60_000 })).jwt;
  }

  /**
   * An admin call by the first admin with their key on the mTLS face. (These tests used the
   * admin's bearer token on the public face until issue 13: that was the bug, admin calls never
   * answer a JWT now.)
   */
  asBoss(method: string, urlPath: string, json?: unknown): Promise<ApiResponse> {
    return this.portal.api('mtls', method, urlPath, { key: this.boss, json });
  }

  /** A member inserted directly (no key), optionally with the invite code they enrolled with. */
  async member(
    callsign: string,
    options: {
      status?: 'active' | 'pending' | 'revoked';
      admin?: boolean;
      inviteCode?: string;
    } = {},
  ): Promise<void> {
    if (options.inviteCode !== undefined) {
      await insertInviteCode(this.db, {
        code: options.inviteCode,
        createdAt: Date.now(),
        ownerCallsign: null,
      });
    }
    const inserted = await insertMember(this.db, {
      callsign,
      status: options.status ?? 'active',
      inviteCode: options.inviteCode ?? null,
      roles: options.admin === true ? ['admin'] : [],
      at: Date.now(),
    });
    expect(inserted).toBe(true);
  }

  /** Every row of every table, to show that a refused call wrote nothing. */
  snapshot(): Promise<string> {
    return snapshotTables(this.db);
  }

  async lastAudit() {
    const [event] = await listRecentAuditEvents(this.db, 1);
    return event;
  }
}

function expectDetail(response: ApiResponse, status: number, detail?: string | RegExp): void {
  expect(response.status, response.text).toBe(status);
  const body = errorResponseSchema.parse(response.json());
  if (detail !== undefined) expect(body.detail).toMatch(detail);
}

/** `openssl pkcs12 -info` of a downloaded keystore: algorithm lines, bags and the leaf serial. */
async function inspectPfx(portal: InjectPortal, pfx: Buffer, password: string) {
  const file = path.join(portal.workDir, `download-${Date.now()}-${Math.random()}.pfx`);
  await writeFile(file, pfx);
  const result = await run('openssl', [
    'pkcs12',
    '-info',
    '-in',
    file,
    '-passin',
    `pass:${password}`,
    '-nodes',
  ]);
  expect(result.code, result.stderr).toBe(0);
  const certificates = [
    ...result.stdout.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g),
  ].map((match) => new X509Certificate(match[0]));
  return {
    file,
    output: result.stderr + result.stdout,
    subjects: certificates.map((certificate) => certificate.subject),
    serial: normalizeSerial(certificates[0]!.serialNumber),
    friendlyNames: [...result.stdout.matchAll(/friendlyName: (.*)/g)].map((match) => match[1]),
  };
}

describe.each(testEngines())('admin and key calls on $name', (engine) => {
  let h: Harness;

  portalOnScratchDatabase(engine, async (env) => {
    h = await Harness.start(env, 'Boss1');
    return h.portal;
  });

  describe('GET people/list', () => {
    it('lists active members with their roles, not pending or revoked ones', async () => {
      await h.member('Listed1');
      await h.member('Waiting1', { status: 'pending' });
      await h.member('Gone1', { status: 'revoked', admin: true });

      const response = await h.asBoss('GET', apiPaths.peopleList);

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      // Exactly the contract's shape, nothing more (the database writes this JSON).
      const { callsign_list: list } = peopleListResponseSchema.strict().parse(response.json());
      expect(list.every((entry) => Object.keys(entry).sort().join() === 'callsign,roles')).toBe(
        true,
      );
      expect(list).toContainEqual({ callsign: 'Boss1', roles: ['admin'] });
      expect(list).toContainEqual({ callsign: 'Listed1', roles: [] });
      const callsigns = list.map((entry) => entry.callsign);
      expect(callsigns).not.toContain('Waiting1');
      expect(callsigns).not.toContain('Gone1');
    });
  });

  describe('DELETE people/{callsign}', () => {
    it('revokes the member and all their certificates at once; the mTLS face refuses their key next', async () => {
      await h.member('Walker1', { inviteCode: 'WALK2222' });
      const first = await h.portal.issueKey('Walker1');
      const second = await h.portal.issueKey('Walker1');
      const walkerJwt = await h.jwt('Walker1');
      expect((await h.portal.api('mtls', 'GET', VALID, { key: first })).status).toBe(200);

      // An admin on the mTLS face, naming the member in another case.
      const response = await h.portal.api('mtls', 'DELETE', apiPaths.person('WALKER1'), {
        key: h.boss,
      });

      expect(response.status, response.text).toBe(200);
      const answer = revokePersonResponseSchema.parse(response.json());
      expect(answer).toMatchObject({ success: true, invite_code: 'WALK2222' });
      // The receipt: both certificates revoked and listed by the CRL signed after them; the
      // responder calls the newest key revoked.
      expect(answer.receipt).toMatchObject({
        certificates_revoked: 2,
        crl: { lists_revoked: 2 },
        newest_serial: second.serial,
        ocsp: { status: 'revoked' },
      });
      expect(await findMemberByCallsign(h.db, 'Walker1')).toMatchObject({ status: 'revoked' });
      for (const key of [first, second]) {
        expect((await findCertificateBySerial(h.db, key.serial))?.revokedAt).not.toBeNull();
        expect((await h.portal.api('mtls', 'GET', VALID, { key })).status).toBe(403);
      }
      expect((await h.portal.api('public', 'GET', VALID, { bearer: walkerJwt })).status).toBe(403);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'member.revoke',
        target: 'Walker1',
        outcome: 'success',
        detail: { certificates: 2 },
      });
      const list = peopleListResponseSchema.parse(
        (await h.asBoss('GET', apiPaths.peopleList)).json(),
      );
      expect(list.callsign_list.map((entry) => entry.callsign)).not.toContain('Walker1');
    });

    it('answers invite_code null for a member who did not enroll with a code', async () => {
      await h.member('Founder1', { admin: true });
      const response = await h.asBoss('DELETE', apiPaths.person('Founder1'));
      expect(response.status, response.text).toBe(200);
      // Nothing to revoke and no key to ask the responder about: the receipt says so.
      expect(revokePersonResponseSchema.parse(response.json())).toMatchObject({
        success: true,
        invite_code: null,
        receipt: {
          certificates_revoked: 0,
          crl: { lists_revoked: 0 },
          newest_serial: null,
          ocsp: null,
        },
      });
    });

    it('404 for an unknown or already revoked member, 409 for yourself; nothing written', async () => {
      await h.member('Twice1', { status: 'revoked' });
      const before = await h.snapshot();

      expectDetail(await h.asBoss('DELETE', apiPaths.person('Nobody1')), 404);
      expectDetail(await h.asBoss('DELETE', apiPaths.person('twice1')), 404);
      const yourself = await h.asBoss('DELETE', apiPaths.person('BOSS1'));
      expectDetail(yourself, 409, 'You cannot revoke yourself');
      // The web app says why in the reader's language.
      expect(yourself.json()).toMatchObject({ reason: 'yourself' });

      expect(await h.snapshot()).toBe(before);
    });
  });

  describe('POST enrollment/promote and demote', () => {
    it('promotes an active member to admin and demotes them again, audited', async () => {
      await h.member('Rookie1');
      const rookieJwt = await h.jwt('Rookie1');
      expect((await h.portal.api('public', 'GET', ADMIN, { bearer: rookieJwt })).status).toBe(403);

      const promoted = await h.asBoss('POST', apiPaths.promote, { callsign: 'rookie1' });

      expect(promoted.status, promoted.text).toBe(200);
      expect(roleChangeResponseSchema.parse(promoted.json())).toEqual({
        success: true,
        detail: 'Rookie1 is now an admin',
      });
      expect((await h.portal.api('public', 'GET', ADMIN, { bearer: rookieJwt })).status).toBe(200);
      const list = peopleListResponseSchema.parse(
        (await h.asBoss('GET', apiPaths.peopleList)).json(),
      );
      expect(list.callsign_list).toContainEqual({ callsign: 'Rookie1', roles: ['admin'] });
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'member.promote',
        target: 'Rookie1',
        outcome: 'success',
      });

      const demoted = await h.asBoss('POST', apiPaths.demote, { callsign: 'ROOKIE1' });

      expect(demoted.status, demoted.text).toBe(200);
      expect(roleChangeResponseSchema.parse(demoted.json())).toEqual({
        success: true,
        detail: 'Rookie1 is no longer an admin',
      });
      expect((await h.portal.api('public', 'GET', ADMIN, { bearer: rookieJwt })).status).toBe(403);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'member.demote',
        target: 'Rookie1',
        outcome: 'success',
      });
    });

    it('promote: 404 unknown, pending or revoked; 400 already admin; nothing written', async () => {
      await h.member('Second1', { admin: true });
      await h.member('Pending2', { status: 'pending' });
      await h.member('Revoked2', { status: 'revoked' });
      const before = await h.snapshot();

      for (const callsign of ['Nobody2', 'Pending2', 'Revoked2']) {
        expectDetail(await h.asBoss('POST', apiPaths.promote, { callsign }), 404);
      }
      expectDetail(
        await h.asBoss('POST', apiPaths.promote, { callsign: 'second1' }),
        400,
        'Second1 is already an admin',
      );

      expect(await h.snapshot()).toBe(before);
    });

    it('demote: 404 unknown or not active; 400 not admin; 409 yourself; nothing written', async () => {
      await h.member('Plain2');
      await h.member('Retired2', { status: 'revoked', admin: true });
      const before = await h.snapshot();

      for (const callsign of ['Nobody3', 'Retired2']) {
        expectDetail(await h.asBoss('POST', apiPaths.demote, { callsign }), 404);
      }
      expectDetail(
        await h.asBoss('POST', apiPaths.demote, { callsign: 'Plain2' }),
        400,
        'Plain2 is not an admin',
      );
      const yourself = await h.asBoss('POST', apiPaths.demote, { callsign: 'boss1' });
      expectDetail(yourself, 409, 'You cannot demote yourself');
      expect(yourself.json()).toMatchObject({ reason: 'yourself' });

      expect(await h.snapshot()).toBe(before);
    });
  });

  describe('invite codes', () => {
    const pools = async () =>
      poolsResponseSchema.parse((await h.asBoss('GET', apiPaths.pools)).json()).pools;

    it('create makes an active 8-character code owned by the admin, listed in pools', async () => {
      const before = Date.now();
      const response = await h.asBoss('POST', apiPaths.createInvite);
      const after = Date.now();

      expect(response.status, response.text).toBe(200);
      const { invite_code: code } = createInviteResponseSchema.parse(response.json());
      expect(code).toMatch(INVITE_CODE);
      const entry = (await pools()).find((pool) => pool.invitecode === code);
      expect(entry).toMatchObject({ invitecode: code, active: true, owner_cs: 'Boss1' });
      const created = Date.parse(entry!.created);
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'invite.create',
        target: code,
        outcome: 'success',
      });
    });

    it('deactivate and activate toggle a code, each idempotent and audited', async () => {
      const { invite_code: code } = createInviteResponseSchema.parse(
        (await h.asBoss('POST', apiPaths.createInvite)).json(),
      );
      const toggle = async (urlPath: string, active: boolean) => {
        for (let time = 0; time < 2; time += 1) {
          const response = await h.asBoss('PUT', urlPath, { invite_code: code.toLowerCase() });
          expect(response.status, response.text).toBe(200);
          expect(inviteToggleResponseSchema.parse(response.json())).toEqual({ success: true });
          expect((await pools()).find((pool) => pool.invitecode === code)?.active).toBe(active);
        }
      };

      await toggle(apiPaths.deactivateInvite, false);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'invite.deactivate',
        target: code,
      });
      await toggle(apiPaths.activateInvite, true);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'invite.activate',
        target: code,
      });
    });

    it('delete removes a code from pools; then it, like an unknown code, answers 404 writing nothing', async () => {
      const { invite_code: code } = createInviteResponseSchema.parse(
        (await h.asBoss('POST', apiPaths.createInvite)).json(),
      );

      const response = await h.asBoss('DELETE', apiPaths.invite(code.toLowerCase()));

      expect(response.status, response.text).toBe(200);
      expect(deleteInviteResponseSchema.parse(response.json())).toEqual({
        success: true,
        invite_code: code,
      });
      expect((await pools()).map((pool) => pool.invitecode)).not.toContain(code);
      expect(await h.lastAudit()).toMatchObject({
        actor: 'Boss1',
        action: 'invite.delete',
        target: code,
      });

      const before = await h.snapshot();
      for (const missing of [code, 'ZZZZ9999']) {
        expectDetail(await h.asBoss('DELETE', apiPaths.invite(missing)), 404);
        expectDetail(
          await h.asBoss('PUT', apiPaths.deactivateInvite, { invite_code: missing }),
          404,
        );
        expectDetail(await h.asBoss('PUT', apiPaths.activateInvite, { invite_code: missing }), 404);
      }
      expect(await h.snapshot()).toBe(before);
    });

    it('revoking or demoting an admin deactivates the codes they created, audited, at once', async () => {
      const issuers = {
        revoked: await h.portal.addMember('Issuer1', { roles: ['admin'] }),
        demoted: await h.portal.addMember('Issuer2', { roles: ['admin'] }),
      };
      const create = async (key: MemberKey) => {
        const response = await h.portal.api('mtls', 'POST', apiPaths.createInvite, { key });
        expect(response.status, response.text).toBe(200);
        return createInviteResponseSchema.parse(response.json()).invite_code;
      };
      const revokedCodes = [await create(issuers.revoked), await create(issuers.revoked)];
      const demotedCode = await create(issuers.demoted);
      const bossCode = await create(h.boss);
      const deleted = await create(issuers.revoked);
      expect((await h.asBoss('DELETE', apiPaths.invite(deleted))).status).toBe(200);

      expect((await h.asBoss('DELETE', apiPaths.person('Issuer1'))).status).toBe(200);
      expect((await h.asBoss('POST', apiPaths.demote, { callsign: 'Issuer2' })).status).toBe(200);

      const listed = await pools();
      for (const code of [...revokedCodes, demotedCode]) {
        expect(listed.find((pool) => pool.invitecode === code)?.active, code).toBe(false);
      }
      expect(listed.find((pool) => pool.invitecode === bossCode)?.active).toBe(true);
      expect(listed.map((pool) => pool.invitecode)).not.toContain(deleted);
      const events = await listRecentAuditEvents(h.db, 50);
      for (const [code, reason] of [
        ...revokedCodes.map((code) => [code, 'owner revoked'] as const),
        [demotedCode, 'owner demoted'] as const,
      ]) {
        expect(
          events.find((event) => event.action === 'invite.deactivate' && event.target === code),
          code,
        ).toMatchObject({ actor: 'Boss1', outcome: 'success', detail: { reason } });
      }
      // Nobody enrolls with them any more.
      const enroll = await h.portal.api('public', 'POST', apiPaths.enroll, {
        json: { callsign: 'Latecomer1', invite_code: revokedCodes[0] },
      });
      expectDetail(enroll, 400, 'Invite code deactivated');
    });

    it('a refused revocation or demotion changes nothing, the admin’s codes included', async () => {
      const code = await h.asBoss('POST', apiPaths.createInvite);
      expect(code.status).toBe(200);
      const before = await h.snapshot();
      expectDetail(await h.asBoss('POST', apiPaths.demote, { callsign: 'Boss1' }), 409);
      expectDetail(await h.asBoss('DELETE', apiPaths.person('Boss1')), 409);
      expect(await h.snapshot()).toBe(before);
    });

    it('10 parallel creates give 10 distinct codes, all listed', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => h.asBoss('POST', apiPaths.createInvite)),
      );

      const codes = responses.map((response) => {
        expect(response.status, response.text).toBe(200);
        return createInviteResponseSchema.parse(response.json()).invite_code;
      });
      expect(new Set(codes).size).toBe(10);
      const listed = await pools();
      for (const code of codes) {
        expect(listed).toContainEqual(
          expect.objectContaining({ invitecode: code, active: true, owner_cs: 'Boss1' }),
        );
      }
    });
  });

  describe('GET enduserpfx/{callsign}', () => {
    let holderJwt: string;

    beforeAll(async () => {
      await h.member('Keyholder');
      holderJwt = await h.jwt('Keyholder');
    });

    const download = (face: Face, urlPath: string, options: ApiRequestOptions) =>
      h.portal.api(face, 'GET', urlPath, options);

    it('answers a fresh legacy (3DES/SHA-1) keystore by default, recorded and audited', async () => {
      const response = await download('public', apiPaths.keyDownload('Keyholder'), {
        bearer: holderJwt,
      });

      expect(response.status, response.text).toBe(200);
      expect(response.headers['content-type']).toBe('application/x-pkcs12');
      expect(response.headers['content-disposition']).toBe('attachment; filename="Keyholder.pfx"');
      expect(response.headers['cache-control']).toBe('no-store');
      const pfx = await inspectPfx(h.portal, response.body, 'Keyholder');
      expect(pfx.output).toContain('MAC: sha1');
      expect(pfx.output).toContain('PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC');
      expect(pfx.output).toContain('Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC');
      // Only openssl's algorithm lines: the base64 of the certificates can contain any letters.
      const algorithms = pfx.output
        .split('\n')
        .filter((line) => /^(MAC:|PKCS7 Encrypted data:|Shrouded Keybag:)/.test(line));
      expect(algorithms.join('\n')).not.toMatch(/AES|RC2/);
      expect(pfx.subjects).toEqual([
        'CN=Keyholder',
        expect.stringContaining('Issuing CA'),
        expect.stringContaining('Root CA'),
      ]);
      expect(pfx.friendlyNames).toEqual(['Keyholder', 'Keyholder']);
      expect(await findCertificateBySerial(h.db, pfx.serial)).toMatchObject({
        callsign: 'Keyholder',
        purpose: 'browser',
        revokedAt: null,
      });
      const event = await h.lastAudit();
      expect(event).toMatchObject({
        actor: 'Keyholder',
        action: 'key.download',
        target: 'Keyholder',
        outcome: 'success',
        detail: { serial: pfx.serial, format: 'legacy' },
      });
      expect(JSON.stringify(event)).not.toMatch(/PRIVATE KEY|CERTIFICATE/);
    });

    it('answers AES-256 with ?format=modern; two downloads carry two different certificates', async () => {
      const response = await download(
        'public',
        `${apiPaths.keyDownload('Keyholder')}?format=modern`,
        {
          bearer: holderJwt,
        },
      );

      expect(response.status, response.text).toBe(200);
      const modern = await inspectPfx(h.portal, response.body, 'Keyholder');
      expect(modern.output).toContain('MAC: sha256');
      expect(modern.output).toContain('PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC');
      expect(modern.output).toContain('Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC');
      expect(modern.output).not.toContain('TripleDES');

      const again = await download('public', apiPaths.keyDownload('Keyholder'), {
        bearer: holderJwt,
      });
      const legacy = await inspectPfx(h.portal, again.body, 'Keyholder');
      expect(legacy.serial).not.toBe(modern.serial);
      for (const serial of [modern.serial, legacy.serial]) {
        expect(await findCertificateBySerial(h.db, serial)).toMatchObject({ purpose: 'browser' });
      }
    });

    it('the downloaded key authenticates on the mTLS face and downloads the next one there', async () => {
      const response = await download('public', apiPaths.keyDownload('keyholder'), {
        bearer: holderJwt,
      });
      expect(response.headers['content-disposition']).toBe('attachment; filename="Keyholder.pfx"');
      const { file } = await inspectPfx(h.portal, response.body, 'Keyholder');
      const key = { pfxFile: file, password: 'Keyholder' };

      const valid = await h.portal.api('mtls', 'GET', VALID, { key });
      expect(valid.status, valid.text).toBe(200);
      expect(checkAuthResponseSchema.parse(valid.json())).toMatchObject({
        type: 'mtls',
        userid: 'Keyholder',
      });
      const next = await download('mtls', apiPaths.keyDownload('KEYHOLDER'), { key });
      expect(next.status, next.text).toBe(200);
      expect(next.headers['content-disposition']).toBe('attachment; filename="Keyholder.pfx"');
      await inspectPfx(h.portal, next.body, 'Keyholder');
    });

    it('403 for another member’s callsign, by token or by certificate; nothing written', async () => {
      const before = await h.snapshot();
      expectDetail(
        await download('public', apiPaths.keyDownload('Boss1'), { bearer: holderJwt }),
        403,
      );
      expectDetail(await download('mtls', apiPaths.keyDownload('Keyholder'), { key: h.boss }), 403);
      expectDetail(
        await download('public', apiPaths.keyDownload('Nobody9'), { bearer: holderJwt }),
        403,
      );
      expect(await h.snapshot()).toBe(before);
    });

    it('403 for a pending enrollee whose token is otherwise accepted; nothing written', async () => {
      await h.member('Newbie1', { status: 'pending', inviteCode: 'NEWB2222' });
      await h.db
        .insertInto('enrollments')
        .values({
          callsign: 'Newbie1',
          invite_code: 'NEWB2222',
          approval_code_hash: hashCode('APPR2222'),
          state: 0,
          created_at: Date.now(),
        })
        .execute();
      const token = await h.jwt('Newbie1', 'enrollment');
      const identity = await h.portal.api('public', 'GET', apiPaths.checkAuthAny, {
        bearer: token,
      });
      expect(identity.status, identity.text).toBe(200);
      const before = await h.snapshot();

      expectDetail(
        await download('public', apiPaths.keyDownload('Newbie1'), { bearer: token }),
        403,
      );

      expect(await h.snapshot()).toBe(before);
    });

    it('a revocation racing a download leaves no unrevoked certificate of the member', async () => {
      await h.member('Racer1');
      const racerJwt = await h.jwt('Racer1');

      const [downloaded, revoked] = await Promise.all([
        download('public', apiPaths.keyDownload('Racer1'), { bearer: racerJwt }),
        h.asBoss('DELETE', apiPaths.person('Racer1')),
      ]);

      expect(revoked.status, revoked.text).toBe(200);
      expect([200, 403]).toContain(downloaded.status);
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from issued_certificates
        where callsign = 'Racer1' and revoked_at is null`.execute(h.db);
      expect(Number(rows[0]?.n)).toBe(0);
    });
  });

  describe('who may call', () => {
    let plain: MemberKey;
    let plainJwt: string;
    let revokedAdmin: MemberKey;
    let revokedAdminJwt: string;

    beforeAll(async () => {
      plain = await h.portal.addMember('Plain9');
      plainJwt = await h.jwt('Plain9');
      revokedAdmin = await h.portal.addMember('Fallen9', { roles: ['admin'] });
      revokedAdminJwt = await h.jwt('Fallen9');
      await revokeMember(h.db, h.portal.portal.certificates, {
        callsign: 'Fallen9',
        actor: 'test',
        clientAddress: null,
      });
      await insertInviteCode(h.db, {
        code: 'MATRIX22',
        createdAt: Date.now(),
        ownerCallsign: null,
      });
    });

    const adminCalls: [string, string, unknown?][] = [
      ['GET', apiPaths.peopleList],
      ['DELETE', apiPaths.person('Plain9')],
      ['POST', apiPaths.promote, { callsign: 'Plain9' }],
      ['POST', apiPaths.demote, { callsign: 'Boss1' }],
      ['GET', apiPaths.pools],
      ['POST', apiPaths.createInvite],
      ['PUT', apiPaths.deactivateInvite, { invite_code: 'MATRIX22' }],
      ['PUT', apiPaths.activateInvite, { invite_code: 'MATRIX22' }],
      ['DELETE', apiPaths.invite('MATRIX22')],
    ];

    /** Callers that are no admin, each with the face they call and what they present. */
    const callers: [string, () => Promise<[Face, ApiRequestOptions]>][] = [
      ['no identity on the public face', () => Promise.resolve(['public', {}])],
      ['no certificate on the mTLS face', () => Promise.resolve(['mtls', {}])],
      [
        'an admin’s JWT sent to the mTLS face without a certificate',
        () => Promise.resolve(['mtls', { bearer: h.bossJwt }]),
      ],
      ['an admin’s expired token', async () => ['public', { bearer: await h.expiredJwt('Boss1') }]],
      ['a revoked admin’s certificate', () => Promise.resolve(['mtls', { key: revokedAdmin }])],
      ['a revoked admin’s token', () => Promise.resolve(['public', { bearer: revokedAdminJwt }])],
      ['a member’s token (not an admin)', () => Promise.resolve(['public', { bearer: plainJwt }])],
      // Admin power needs the key: the first admin's own valid token gets nothing either.
      [
        'an admin’s valid token on the public face',
        () => Promise.resolve(['public', { bearer: h.bossJwt }]),
      ],
      ['a member’s certificate (not an admin)', () => Promise.resolve(['mtls', { key: plain }])],
    ];

    it.each(callers)('admin calls refuse %s with 403, writing nothing', async (_name, caller) => {
      const [face, options] = await caller();
      const before = await h.snapshot();
      for (const [method, urlPath, json] of adminCalls) {
        const response = await h.portal.api(face, method, urlPath, { ...options, json });
        expectDetail(response, 403);
      }
      expect(await h.snapshot()).toBe(before);
    });

    /** Callers that are no valid user, with the callsign that would be their own. */
    const keyCallers: [string, string, () => Promise<[Face, ApiRequestOptions]>][] = [
      ['no identity on the public face', 'Plain9', () => Promise.resolve(['public', {}])],
      ['no certificate on the mTLS face', 'Plain9', () => Promise.resolve(['mtls', {}])],
      [
        'a JWT sent to the mTLS face without a certificate',
        'Plain9',
        () => Promise.resolve(['mtls', { bearer: plainJwt }]),
      ],
      [
        'an expired token',
        'Plain9',
        async () => ['public', { bearer: await h.expiredJwt('Plain9') }],
      ],
      [
        'a revoked member’s certificate',
        'Fallen9',
        () => Promise.resolve(['mtls', { key: revokedAdmin }]),
      ],
      [
        'a revoked member’s token',
        'Fallen9',
        () => Promise.resolve(['public', { bearer: revokedAdminJwt }]),
      ],
    ];

    it.each(keyCallers)(
      'the key download refuses %s with 403, writing nothing',
      async (_name, own, caller) => {
        const [face, options] = await caller();
        const before = await h.snapshot();
        expectDetail(await h.portal.api(face, 'GET', apiPaths.keyDownload(own), options), 403);
        expect(await h.snapshot()).toBe(before);
      },
    );

    it('the member’s own token and certificate do download (the matrix above is not vacuous)', async () => {
      expect(
        (await h.portal.api('public', 'GET', apiPaths.keyDownload('Plain9'), { bearer: plainJwt }))
          .status,
      ).toBe(200);
      expect(
        (await h.portal.api('mtls', 'GET', apiPaths.keyDownload('Plain9'), { key: plain })).status,
      ).toBe(200);
    });
  });
});

// Two admins acting on each other at once: the membership lock and the count inside the
// transaction leave exactly one of them an admin, whatever the interleaving. Each engine gets a
// portal of its own, where these are the only admins.
describe.each(testEngines())('racing admins on $name', (engine) => {
  const ROUNDS = 6;
  let h: Harness;

  portalOnScratchDatabase(engine, async (env) => {
    h = await Harness.start(env, 'Origin');
    return h.portal;
  });

  const actions = {
    demote: (target: string) => ['POST', apiPaths.demote, { callsign: target }] as const,
    revoke: (target: string) => ['DELETE', apiPaths.person(target), undefined] as const,
  };

  it.each([
    ['demote', 'demote'],
    ['revoke', 'revoke'],
    ['demote', 'revoke'],
  ] as const)('%s against %s never leaves zero admins', async (first, second) => {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Exactly two active admins: the survivors of earlier rounds are revoked first.
      const survivors = await h.db
        .selectFrom('member_roles')
        .innerJoin('members', 'members.callsign', 'member_roles.callsign')
        .select('members.callsign')
        .where('members.status', '=', 'active')
        .execute();
      for (const { callsign } of survivors) {
        await revokeMember(h.db, h.portal.portal.certificates, {
          callsign,
          actor: 'test',
          clientAddress: null,
        });
      }
      const [a, b] = [`A${first}${second}${round}`, `B${first}${second}${round}`];
      // Each with their key: admin calls answer only that (they raced with tokens before issue 13).
      const aKey = await h.portal.addMember(a, { roles: ['admin'] });
      const bKey = await h.portal.addMember(b, { roles: ['admin'] });
      expect(await countActiveAdmins(h.db)).toBe(2);

      const call = (key: MemberKey, [method, urlPath, json]: readonly [string, string, unknown]) =>
        h.portal.api('mtls', method, urlPath, { key, json });
      const responses = await Promise.all([
        call(aKey, actions[first](b)),
        call(bKey, actions[second](a)),
      ]);

      const statuses = responses.map((response) => response.status);
      expect(
        statuses.filter((status) => status === 200),
        statuses.join(),
      ).toHaveLength(1);
      // The loser either lost its own admin role before it was authorised (403) or met the rule.
      const loser = responses.find((response) => response.status !== 200)!;
      expect([403, 409]).toContain(loser.status);
      if (loser.status === 409) {
        expectDetail(loser, 409, /^The last admin cannot be/);
        expect(loser.json()).toMatchObject({ reason: 'last_admin' });
      }
      expect(await countActiveAdmins(h.db)).toBe(1);
    }
  });
});
