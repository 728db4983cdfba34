import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  errorResponseSchema,
  MEMBER_SORTS,
  memberResponseSchema,
  membersListResponseSchema,
  type MemberRow,
  type MemberSort,
} from '@callsign/contract';
import type { MemberStatus } from '../../src/db/schema.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { insertMember, setLastSeenOnTak } from '../../src/modules/people/repository.js';
import { allKeysetPages } from '../support/keyset-pages.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

// The admin's members table (docs/api.md#the-members-table): GET admin/members searches, sorts and pages over
// every member with their role, TAK preset, key expiry and presence (issue 27's
// last_seen_tak_at); GET admin/members/{callsign} is one member's row.

const T = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const TEAMS = ['Cyan', 'Dark Blue', 'Red', 'Maroon'];
const ROLES = ['Team Member', 'Medic', 'Sniper', 'RTO'];
const STATES: MemberStatus[] = ['active', 'active', 'pending', 'revoked', 'rejected'];

interface Seeded {
  callsign: string;
  status: MemberStatus;
  team: string;
  role: string;
  enrolledAt: number;
  /** A key that is not revoked: its expiry. */
  keyExpiresAt: number | null;
  lastSeenTakAt: number | null;
}

/** 41 members: mixed case, every state, teams and roles, some without a key or never seen. */
const SEEDED: Seeded[] = Array.from({ length: 41 }, (_, i) => ({
  callsign: `${i % 2 === 0 ? 'Unit' : 'unit'}${String((i * 17) % 41).padStart(2, '0')}x`,
  status: STATES[i % STATES.length] ?? 'active',
  team: TEAMS[i % TEAMS.length] ?? 'Cyan',
  role: ROLES[(i >> 1) % ROLES.length] ?? 'Medic',
  // Two members a day: ties in every time order.
  enrolledAt: T + Math.floor(i / 2) * DAY,
  keyExpiresAt: i % 3 === 0 ? null : T + ((i * 7) % 13) * DAY,
  lastSeenTakAt: i % 4 === 0 ? null : T + ((i * 5) % 11) * DAY,
}));

const NO_KEY = Number.MAX_SAFE_INTEGER;

describe.each(testEngines())('the members table on $name', (engine) => {
  let portal: InjectPortal;
  let boss: MemberKey;
  let member: MemberKey;

  portalOnScratchDatabase(engine, async (env) => (portal = await openInjectPortal({ env })));
  beforeAll(async () => {
    boss = await portal.addMember('Boss7', { roles: ['admin'] });
    member = await portal.addMember('Plain8');
    const db = portal.portal.database.db;
    for (const [i, seeded] of SEEDED.entries()) {
      await insertMember(db, {
        callsign: seeded.callsign,
        status: seeded.status,
        inviteCode: null,
        roles: i % 10 === 1 ? ['admin'] : [],
        at: seeded.enrolledAt,
        preset: { team: seeded.team, role: seeded.role },
      });
      if (seeded.lastSeenTakAt !== null) {
        await setLastSeenOnTak(db, seeded.callsign, seeded.lastSeenTakAt);
      }
      const key = (serial: string, notAfter: number, extra: object = {}) =>
        db
          .insertInto('issued_certificates')
          .values({
            serial,
            callsign: seeded.callsign,
            purpose: 'browser',
            not_before: T,
            not_after: notAfter,
            issued_at: T,
            revoked_at: null,
            revocation_reason: null,
            ...extra,
          })
          .execute();
      // Beside each member's key: a revoked key and a server certificate of the same name that
      // expire later, which the table does not count.
      if (seeded.keyExpiresAt !== null) await key(`A${String(i)}`, seeded.keyExpiresAt);
      await key(`B${String(i)}`, T + 400 * DAY, { revoked_at: T, revocation_reason: 'x' });
      await key(`C${String(i)}`, T + 500 * DAY, { purpose: 'server' });
    }
  });

  const get = (path: string, key: MemberKey = boss) => portal.api('mtls', 'GET', path, { key });

  async function page(query: Record<string, string>) {
    const answer = await get(`${apiPaths.members}?${new URLSearchParams(query).toString()}`);
    expect(answer.status, answer.text).toBe(200);
    return membersListResponseSchema.parse(answer.json());
  }

  /** Every member a query selects, page by page with the cursor. */
  async function allPages(query: Record<string, string>, limit: number) {
    const read = async (pageQuery: Record<string, string>) => {
      const answer = await page(pageQuery);
      return { rows: answer.members, next: answer.next };
    };
    const { rows, pages } = await allKeysetPages(read, query, limit);
    return { members: rows, pages };
  }

  /** The seeded members (and the two fixtures) in the order `sort` promises. */
  function expectedOrder(sort: MemberSort, rows: MemberRow[]): string[] {
    const descending = sort.startsWith('-');
    const key = sort.replace(/^-/, '');
    const value = (row: MemberRow): number => {
      if (key === 'key_expires_at')
        return row.key_expires_at === null ? NO_KEY : Date.parse(row.key_expires_at);
      if (key === 'last_seen_tak_at')
        return row.last_seen_tak_at === null ? 0 : Date.parse(row.last_seen_tak_at);
      return Date.parse(row.enrolled_at);
    };
    const byCallsign = (a: MemberRow, b: MemberRow) =>
      a.callsign.toLowerCase() < b.callsign.toLowerCase() ? -1 : 1;
    return [...rows]
      .sort((a, b) => {
        const [x, y] = descending ? [b, a] : [a, b];
        if (key === 'callsign') return byCallsign(x, y);
        const difference = value(x) - value(y);
        return difference === 0 ? byCallsign(x, y) : difference;
      })
      .map((row) => row.callsign);
  }

  it('answers each member with role, state, preset, groups, key expiry and presence', async () => {
    const { members } = await allPages({}, 200);
    expect(members).toHaveLength(SEEDED.length + 2);
    for (const seeded of SEEDED) {
      const row = members.find((candidate) => candidate.callsign === seeded.callsign);
      expect(row).toEqual({
        callsign: seeded.callsign,
        admin: SEEDED.indexOf(seeded) % 10 === 1,
        state: seeded.status,
        team: seeded.team,
        role: seeded.role,
        groups: [],
        enrolled_at: new Date(seeded.enrolledAt).toISOString(),
        key_expires_at:
          seeded.keyExpiresAt === null ? null : new Date(seeded.keyExpiresAt).toISOString(),
        last_seen_tak_at:
          seeded.lastSeenTakAt === null ? null : new Date(seeded.lastSeenTakAt).toISOString(),
      });
    }
    const bossRow = members.find((row) => row.callsign === 'Boss7');
    expect(bossRow).toMatchObject({ admin: true, state: 'active', last_seen_tak_at: null });
    expect(bossRow?.key_expires_at).not.toBeNull();
  });

  it("answers a member's groups from the unit's groups, by name, and none once taken out", async () => {
    const admin = (method: string, path: string, json: unknown) =>
      portal.api('mtls', method, path, { key: boss, json });
    for (const name of ['Red', 'Medics']) {
      expect((await admin('POST', apiPaths.groups, { name, description: name })).status).toBe(200);
    }
    const placed = await admin('PUT', apiPaths.personGroups('Plain8'), {
      groups: [{ name: 'Red' }, { name: 'Medics', direction: 'out' }],
    });
    expect(placed.status, placed.text).toBe(200);
    const row = async () =>
      (await page({ q: 'plain8' })).members.find((candidate) => candidate.callsign === 'Plain8');
    expect((await row())?.groups).toEqual(['Medics', 'Red']);

    expect((await admin('PUT', apiPaths.personGroups('Plain8'), { groups: [] })).status).toBe(200);
    expect((await row())?.groups).toEqual([]);
  });

  it('pages in every order with the cursor, each member once, in the order promised', async () => {
    const { members: everyone } = await allPages({}, 200);
    for (const sort of MEMBER_SORTS) {
      const { members, pages } = await allPages({ sort }, 6);
      expect(pages, sort).toBe(Math.ceil(everyone.length / 6));
      expect(
        members.map((row) => row.callsign),
        sort,
      ).toEqual(expectedOrder(sort, everyone));
    }
  });

  it('finds a part of a callsign, team or role in any case; next is null at the end', async () => {
    const byCallsign = await allPages({ q: 'NIT1' }, 3);
    expect(byCallsign.members.map((row) => row.callsign).sort()).toEqual(
      SEEDED.filter((seeded) => seeded.callsign.toLowerCase().includes('nit1'))
        .map((seeded) => seeded.callsign)
        .sort(),
    );
    const byTeam = await page({ q: 'dark b', limit: '200' });
    expect(byTeam.next).toBeNull();
    expect(byTeam.members.length).toBeGreaterThan(0);
    expect(byTeam.members.every((row) => row.team === 'Dark Blue')).toBe(true);
    const byRole = await page({ q: 'medi', sort: '-key_expires_at', limit: '200' });
    expect(byRole.members.map((row) => row.callsign)).toEqual(
      expectedOrder(
        '-key_expires_at',
        byRole.members.filter((row) => row.role === 'Medic'),
      ),
    );
    expect(byRole.members).toHaveLength(SEEDED.filter((seeded) => seeded.role === 'Medic').length);
    // LIKE's wildcards are matched as themselves.
    expect((await page({ q: '%' })).members).toEqual([]);
    expect((await page({ q: '_' })).members).toEqual([]);
    expect((await page({ q: '' })).members).toHaveLength(SEEDED.length + 2);
  });

  it('refuses bad input with a detail: 422 malformed, 400 a cursor of another order', async () => {
    const refused = async (query: string, detail: RegExp, status = 422) => {
      const answer = await get(`${apiPaths.members}?${query}`);
      expect(answer.status, query).toBe(status);
      expect(JSON.stringify(errorResponseSchema.parse(answer.json()).detail), query).toMatch(
        detail,
      );
    };
    await refused('sort=rank', /sort/);
    await refused('limit=0', /limit/);
    await refused('limit=201', /limit/);
    await refused('before=Unit01x%27--', /before/);
    await refused(`q=${'a'.repeat(61)}`, /q/);
    await refused('q=a%00b', /q/);
    await refused('colour=red', /colour/);
    // A cursor of one order is not one of another.
    const first = await page({ sort: 'enrolled_at', limit: '2' });
    expect(first.next).toMatch(/^\d+\.\w+$/);
    await refused(`before=${first.next ?? ''}`, /before/, 400);
    await refused('sort=last_seen_tak_at&before=Unit01x', /before/, 400);
  });

  it('answers one member in any case and state; 404 for nobody', async () => {
    const revoked = SEEDED.find((seeded) => seeded.status === 'revoked');
    const answer = await get(apiPaths.member(revoked?.callsign.toUpperCase() ?? ''));
    expect(answer.status, answer.text).toBe(200);
    const { member: row } = memberResponseSchema.parse(answer.json());
    expect(row).toMatchObject({ callsign: revoked?.callsign, state: 'revoked', groups: [] });
    expect((await get(apiPaths.member('Nobody9'))).status).toBe(404);
    expect((await get(apiPaths.member('no'))).status).toBe(422);
  });

  it('is for admins only', async () => {
    expect((await get(apiPaths.members, member)).status).toBe(403);
    expect((await get(apiPaths.member('Boss7'), member)).status).toBe(403);
    expect((await portal.api('mtls', 'GET', apiPaths.members)).status).toBe(403);
  });
});
