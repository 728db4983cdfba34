import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_COLUMNS,
  addAdminResponseSchema,
  apiPaths,
  auditListResponseSchema,
  createInviteResponseSchema,
  enrollResponseSchema,
  errorResponseSchema,
  exchangeCodeResponseSchema,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { appendAuditEvent } from '../../src/modules/audit/repository.js';
import { EXPORT_PAGE } from '../../src/modules/audit/service.js';
import { createAdminCode } from '../../src/modules/firstuser/admin-code.js';
import { pathOf, registeredApiRoutes } from '../support/api-routes.js';
import { allKeysetPages } from '../support/keyset-pages.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';

/**
 * The audit log on screen (docs/operations.md): GET admin/audit pages newest first with filters,
 * GET admin/audit.csv streams the filtered range, and no call changes or removes an event.
 */

const ADMIN = 'Ledger1';
const T = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;
/** More events than one export page, so the CSV is read in several queries. */
const SEEDED = EXPORT_PAGE + 150;

type CsvRow = Record<(typeof AUDIT_CSV_COLUMNS)[number], string>;

describe.each(testEngines())('the audit log on $name', (engine) => {
  let portal: InjectPortal;
  let adminKey: MemberKey;

  const asAdmin = (path: string) => portal.api('mtls', 'GET', path, { key: adminKey });

  async function page(query: Record<string, string>) {
    const answer = await asAdmin(`${apiPaths.audit}?${new URLSearchParams(query).toString()}`);
    expect(answer.status, answer.text).toBe(200);
    return auditListResponseSchema.parse(answer.json());
  }

  /** Every event a filter selects, read page by page with the cursor. */
  async function allPages(query: Record<string, string>, limit: number) {
    const read = async (pageQuery: Record<string, string>) => {
      const answer = await page(pageQuery);
      return { rows: answer.events, next: answer.next_before };
    };
    const { rows, pages } = await allKeysetPages(read, query, limit);
    return { events: rows, pages };
  }

  async function csv(query: Record<string, string>) {
    const answer = await asAdmin(`${apiPaths.auditCsv}?${new URLSearchParams(query).toString()}`);
    expect(answer.status, answer.text).toBe(200);
    const rows = parse<CsvRow>(answer.body, { bom: true, columns: true });
    return { answer, rows };
  }

  portalOnScratchDatabase(engine, async (env) => (portal = await openInjectPortal({ env })));
  beforeAll(async () => {
    adminKey = await portal.addMember(ADMIN, { roles: ['admin'] });
    const db = portal.portal.database.db;
    // A day of events a minute apart: three actors, three kinds of action.
    for (let i = 0; i < SEEDED; i += 1) {
      await appendAuditEvent(db, {
        at: T + i * MINUTE,
        actor: ['Alpha1', 'Bravo2', 'cli'][i % 3] ?? null,
        action: ['invite.create', 'invite.delete', 'member.revoke'][i % 3] ?? 'x',
        target: `Target${i % 10}`,
        outcome: i % 7 === 0 ? 'failure' : 'success',
        clientAddress: i % 3 === 2 ? null : `192.0.2.${i % 200}`,
        detail: { index: i },
      });
    }
  });

  it('pages newest first with the cursor, every event once', async () => {
    const first = await page({ limit: '5' });
    expect(first.events).toHaveLength(5);
    const times = first.events.map((event) => Date.parse(event.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(first.next_before).toBe(first.events[4]?.id);

    const { events, pages } = await allPages({ action: 'member' }, 40);
    const expected = Math.floor(SEEDED / 3);
    expect(events).toHaveLength(expected);
    expect(pages).toBe(Math.ceil(expected / 40));
    expect(new Set(events.map((event) => event.id)).size).toBe(expected);
    expect(events[0]).toMatchObject({
      action: 'member.revoke',
      actor: 'cli',
      client_address: null,
    });
  });

  it('filters by actor and target in any case, action and its prefix, and time', async () => {
    const bravo = await allPages({ actor: 'bravo2', target: 'TARGET1' }, 500);
    expect(bravo.events.length).toBeGreaterThan(0);
    for (const event of bravo.events)
      expect(event).toMatchObject({ actor: 'Bravo2', target: 'Target1' });

    const invites = await allPages({ action: 'invite' }, 500);
    expect(new Set(invites.events.map((event) => event.action))).toEqual(
      new Set(['invite.create', 'invite.delete']),
    );
    // A prefix matches whole parts only: "invite.cr" is not an action.
    expect((await page({ action: 'invite.cr' })).events).toEqual([]);

    const from = new Date(T + 10 * MINUTE).toISOString();
    const to = new Date(T + 20 * MINUTE).toISOString();
    const hour = await allPages({ from, to }, 3);
    expect(hour.events.map((event) => event.at)).toEqual(
      Array.from({ length: 10 }, (_, i) => new Date(T + (19 - i) * MINUTE).toISOString()),
    );
  });

  it('refuses a bad cursor, time or limit with a detail: 422 malformed, 400 meaningless', async () => {
    const queries: [Record<string, string>, number][] = [
      [{ before: '0190a1b2-0000-7000-8000-000000000000' }, 400],
      [{ from: new Date(T + MINUTE).toISOString(), to: new Date(T).toISOString() }, 400],
      [{ before: 'not-an-id' }, 422],
      [{ from: 'yesterday' }, 422],
      [{ limit: '0' }, 422],
      [{ limit: '501' }, 422],
      [{ colour: 'red' }, 422],
    ];
    for (const [query, status] of queries) {
      const answer = await asAdmin(`${apiPaths.audit}?${new URLSearchParams(query).toString()}`);
      expect(answer.status, JSON.stringify(query)).toBe(status);
      expect(errorResponseSchema.parse(answer.json()).detail).toBeTruthy();
    }
  });

  it('exports the filtered range as CSV, streamed, and records the export', async () => {
    const query = { actor: 'alpha1' };
    const { answer, rows } = await csv(query);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toMatch(
      /^attachment; filename="portal-audit-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    // Streamed: sent in chunks as it is read, its length unknown up front.
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.headers['content-length']).toBeUndefined();

    const listed = await allPages(query, 500);
    expect(rows.map((row) => row.id)).toEqual(listed.events.map((event) => event.id));
    expect(Object.keys(rows[0] ?? {})).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(rows.at(-1)).toEqual({
      id: listed.events.at(-1)?.id,
      time: new Date(T).toISOString(),
      actor: 'Alpha1',
      action: 'invite.create',
      target: 'Target0',
      outcome: 'failure',
      client_address: '192.0.2.0',
      detail: '{"index":0}',
    });

    // The whole log: more rows than one export page.
    const everything = await csv({});
    expect(everything.rows.length).toBeGreaterThan(EXPORT_PAGE);

    const exports = await page({ action: 'audit.export' });
    expect(exports.events[0]).toMatchObject({
      actor: ADMIN,
      target: null,
      outcome: 'success',
      client_address: '127.0.0.1',
    });
    expect(exports.events[1]?.detail).toEqual({ actor: 'alpha1' });
    expect(exports.events[0]?.detail).toEqual({});
    // An export holds the events up to its start: the earlier export, not its own record.
    const ids = everything.rows.map((row) => row.id);
    expect(exports.events).toHaveLength(2);
    expect(ids).not.toContain(exports.events[0]?.id);
    expect(ids).toContain(exports.events[1]?.id);
  });

  it('guards cells a spreadsheet would run as a formula, and quotes what CSV needs', async () => {
    const db = portal.portal.database.db;
    await appendAuditEvent(db, {
      at: T - MINUTE,
      actor: 'Formula1',
      action: 'enrollment.lock',
      target: '=HYPERLINK("http://example.invalid","x")',
      outcome: 'success',
      clientAddress: '@evil',
      detail: { lock_reason: 'said "no", then left\nfor good' },
    });
    await appendAuditEvent(db, {
      at: T - 2 * MINUTE,
      actor: 'Formula1',
      action: '+cmd|/c calc',
      target: '-2+3',
      outcome: 'success',
      clientAddress: null,
    });
    const { answer, rows } = await csv({ actor: 'Formula1' });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      target: `'=HYPERLINK("http://example.invalid","x")`,
      client_address: "'@evil",
      detail: '{"lock_reason":"said \\"no\\", then left\\nfor good"}',
    });
    expect(rows[1]).toMatchObject({ action: "'+cmd|/c calc", target: "'-2+3", client_address: '' });
    expect(answer.body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it('is for admins with their key only', async () => {
    const member = await portal.addMember('Reader3');
    for (const path of [apiPaths.audit, apiPaths.auditCsv]) {
      expect((await portal.api('mtls', 'GET', path, { key: member })).status).toBe(403);
      expect((await portal.api('public', 'GET', path)).status).toBe(403);
    }
  });

  it('no call changes or removes an event: every route, called as an admin, only appends', async () => {
    const db = portal.portal.database.db;
    const before = (
      await sql<Record<string, unknown>>`select * from audit_events order by id`.execute(db)
    ).rows;
    const routes = await registeredApiRoutes();
    for (const route of routes) {
      const path = pathOf(route, route.url.includes(':callsign') ? ADMIN : 'ZZZZ9999');
      const answer = await portal.api('mtls', route.method, path, {
        key: adminKey,
        ...(route.schema.body === undefined ? {} : { json: {} }),
      });
      expect(answer.status, `${route.method} ${route.url}`).toBeLessThan(500);
    }
    // One invite code through its whole life, and a refused revocation of oneself.
    const created = createInviteResponseSchema.parse(
      (await portal.api('mtls', 'POST', apiPaths.createInvite, { key: adminKey })).json(),
    ).invite_code;
    await portal.api('mtls', 'PUT', apiPaths.deactivateInvite, {
      key: adminKey,
      json: { invite_code: created },
    });
    await portal.api('mtls', 'DELETE', apiPaths.invite(created), { key: adminKey });
    await portal.api('mtls', 'DELETE', apiPaths.person(ADMIN), { key: adminKey });

    const after = (
      await sql<Record<string, unknown>>`select * from audit_events order by id`.execute(db)
    ).rows;
    const unchanged = after.filter((row) => before.some((old) => old.id === row.id));
    expect(unchanged).toEqual(before);
    expect(after.length).toBeGreaterThan(before.length);
  });

  it('records every sign-in, admin action, key issue and revocation with the client address', async () => {
    const db = portal.portal.database.db;
    const start = new Date().toISOString();
    const call = (face: 'public' | 'mtls', method: string, path: string, json?: unknown) =>
      portal.api(face, method, path, {
        ...(face === 'mtls' ? { key: adminKey } : {}),
        ...(json === undefined ? {} : { json }),
      });

    // Sign-ins: a refused code, then the first-admin steps with an admin code.
    await call('public', 'POST', apiPaths.exchangeCode, { code: 'WRONGWRONG23' });
    const { code } = await createAdminCode(db, { ttlMs: 60_000, actor: 'cli' });
    const session = exchangeCodeResponseSchema.parse(
      (await call('public', 'POST', apiPaths.exchangeCode, { code })).json(),
    ).jwt;
    const added = addAdminResponseSchema.parse(
      (
        await portal.api('public', 'POST', apiPaths.addAdmin, {
          json: { callsign: 'Second2' },
          bearer: session,
        })
      ).json(),
    );
    await call('public', 'POST', apiPaths.exchangeCode, { code: added.jwt_exchange_code });

    // Admin actions on invite codes and an enrollment, a wrong approval code among them.
    const invite = createInviteResponseSchema.parse(
      (await call('mtls', 'POST', apiPaths.createInvite)).json(),
    ).invite_code;
    await call('mtls', 'PUT', apiPaths.deactivateInvite, { invite_code: invite });
    await call('mtls', 'PUT', apiPaths.activateInvite, { invite_code: invite });
    const enrolled = enrollResponseSchema.parse(
      (
        await call('public', 'POST', apiPaths.enroll, { callsign: 'Newbie4', invite_code: invite })
      ).json(),
    );
    const wrong = await call('mtls', 'POST', apiPaths.accept, {
      callsign: 'Newbie4',
      approvecode: 'WRONG234',
    });
    expect(wrong.status).toBe(403);
    await call('mtls', 'POST', apiPaths.accept, {
      callsign: 'Newbie4',
      approvecode: enrolled.approvecode,
    });
    await call('mtls', 'POST', apiPaths.promote, { callsign: 'Newbie4' });
    await call('mtls', 'POST', apiPaths.demote, { callsign: 'Newbie4' });
    // Key issues: a key download and the TAK packages, then the revocation.
    await portal.api('public', 'GET', apiPaths.keyDownload('Newbie4'), { bearer: enrolled.jwt });
    await portal.api('public', 'GET', apiPaths.instructions, { bearer: enrolled.jwt });
    await call('mtls', 'DELETE', apiPaths.person('Newbie4'));
    await call('mtls', 'DELETE', apiPaths.invite(invite));

    const events = (await allPages({ from: start }, 500)).events.reverse();
    const seen = events.map((event) => [event.action, event.outcome, event.actor, event.target]);
    expect(seen).toEqual([
      ['sign-in', 'failure', null, null],
      ['admin-code.create', 'success', 'cli', null],
      ['sign-in', 'success', null, null],
      ['member.add-admin', 'success', null, 'Second2'],
      ['sign-in', 'success', 'Second2', 'Second2'],
      ['invite.create', 'success', ADMIN, invite],
      ['invite.deactivate', 'success', ADMIN, invite],
      ['invite.activate', 'success', ADMIN, invite],
      ['enrollment.create', 'success', 'Newbie4', 'Newbie4'],
      ['enrollment.accept', 'failure', ADMIN, 'Newbie4'],
      ['enrollment.accept', 'success', ADMIN, 'Newbie4'],
      ['member.promote', 'success', ADMIN, 'Newbie4'],
      ['member.demote', 'success', ADMIN, 'Newbie4'],
      ['key.download', 'success', 'Newbie4', 'Newbie4'],
      ['tak.packages', 'success', 'Newbie4', 'Newbie4'],
      ['member.revoke', 'success', ADMIN, 'Newbie4'],
      ['invite.delete', 'success', ADMIN, invite],
    ]);
    // Everything that came through the API carries the caller's address.
    for (const event of events.filter((event) => event.actor !== 'cli')) {
      expect(event.client_address, event.action).toBe('127.0.0.1');
    }
    expect(events.find((event) => event.action === 'enrollment.accept')?.detail).toEqual({
      reason: 'wrong approval code',
    });
  });

  it('the database itself refuses to change or remove an event', async () => {
    const db = portal.portal.database.db;
    const statements = [
      sql`update audit_events set actor = 'Mallory' where actor = 'Alpha1'`,
      sql`delete from audit_events where actor = 'Bravo2'`,
      sql`delete from audit_events`,
      ...(engine.name === 'postgres' ? [sql`truncate audit_events`] : []),
    ];
    const count = async () =>
      Number(
        (await sql<{ n: number | string }>`select count(*) as n from audit_events`.execute(db))
          .rows[0]?.n,
      );
    const rows = await count();
    for (const statement of statements) {
      await expect(statement.execute(db)).rejects.toThrow(/audit events are append-only/);
    }
    expect(await count()).toBe(rows);
    expect((await page({ actor: 'Mallory' })).events).toEqual([]);
  });
});
