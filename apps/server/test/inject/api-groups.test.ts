import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  bulkResponseSchema,
  createInviteResponseSchema,
  deleteGroupResponseSchema,
  enrollResponseSchema,
  errorResponseSchema,
  groupsResponseSchema,
  memberGroupsResponseSchema,
  poolsResponseSchema,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import type { ApiResponse } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * Groups (docs/api.md "Groups"), in-process on both engines: admins create,
 * list and delete groups, set a member's groups with TAK Server's direction, invites and bulk
 * batches carry groups to the members they admit, a member reads their own; every change is
 * audited and a refused one writes nothing.
 */

function detailOf(response: ApiResponse): string {
  const { detail } = errorResponseSchema.parse(response.json());
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

describe.each(testEngines())('groups on $name', (engine) => {
  let portal: InjectPortal;
  let admin: MemberKey;
  let member: MemberKey;
  const db = () => portal.portal.database.db;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env: { ...env, PORTAL_RATE_LIMIT_FAILURES: '10000' } });
    return portal;
  });
  beforeAll(async () => {
    admin = await portal.addMember('Chief1', { roles: ['admin'] });
    member = await portal.addMember('Scout1');
  });

  const asAdmin = (method: string, path: string, json?: unknown) =>
    portal.api('mtls', method, path, { key: admin, ...(json === undefined ? {} : { json }) });

  async function createGroup(name: string, description = '') {
    const response = await asAdmin('POST', apiPaths.groups, { name, description });
    expect(response.status, response.text).toBe(200);
    return response.json();
  }

  async function groups() {
    const response = await asAdmin('GET', apiPaths.groups);
    expect(response.status, response.text).toBe(200);
    return groupsResponseSchema.parse(response.json()).groups;
  }

  async function memberGroups(callsign: string) {
    const response = await asAdmin('GET', apiPaths.personGroups(callsign));
    expect(response.status, response.text).toBe(200);
    return memberGroupsResponseSchema.parse(response.json());
  }

  it('creates a group, lists it, and refuses the same name in any case', async () => {
    expect(await createGroup('Red', 'Assault team')).toEqual({
      name: 'Red',
      description: 'Assault team',
    });
    expect((await groups()).find((group) => group.name === 'Red')).toEqual({
      name: 'Red',
      description: 'Assault team',
      members: [],
    });
    const [event] = await listRecentAuditEvents(db(), 1);
    expect(event).toMatchObject({ action: 'group.create', target: 'Red', actor: 'Chief1' });
    const before = await snapshotTables(db());
    const again = await asAdmin('POST', apiPaths.groups, { name: 'RED' });
    expect(again.status).toBe(409);
    expect(await snapshotTables(db())).toBe(before);
  });

  it('keeps a name as LDAP compares it, and refuses one LDAP would see as an existing group (409, nothing changed)', async () => {
    expect(await createGroup('Night  shift ')).toEqual({ name: 'Night shift', description: '' });
    await db()
      .insertInto('groups')
      .values({ name: 'ops ', created_at: Date.now(), created_by: 'Chief1' })
      .execute();
    const before = await snapshotTables(db());
    for (const [name, existing] of [
      ['night shift', 'Night shift'],
      ['NIGHT   SHIFT ', 'Night shift'],
      ['Ops', 'ops '],
      ['ops  ', 'ops '],
    ] as const) {
      const refused = await asAdmin('POST', apiPaths.groups, { name });
      expect(refused.status, name).toBe(409);
      expect(refused.json(), name).toMatchObject({
        reason: 'group_exists',
        detail: `A group "${existing}" exists: LDAP, where TAK Server reads groups, compares names in any case, with spaces at the ends dropped and runs of spaces as one`,
      });
    }
    expect(await snapshotTables(db())).toBe(before);
    await db().deleteFrom('groups').where('name', '=', 'ops ').execute();
  });

  it('refuses a malformed name or one TAK Server would read as a direction (422)', async () => {
    const before = await snapshotTables(db());
    for (const name of ['', ' Lead', 'a/b', 'x'.repeat(65), 'Blue_READ', 'Blue_WRITE']) {
      const response = await asAdmin('POST', apiPaths.groups, { name });
      expect(response.status, name).toBe(422);
    }
    expect(await snapshotTables(db())).toBe(before);
  });

  it("sets a member's groups with a direction (both by default) and audits what they were", async () => {
    await createGroup('Blue');
    await createGroup('HQ Net');
    const response = await asAdmin('PUT', apiPaths.personGroups('scout1'), {
      groups: [{ name: 'blue' }, { name: 'HQ Net', direction: 'out' }],
    });
    expect(response.status, response.text).toBe(200);
    expect(memberGroupsResponseSchema.parse(response.json())).toEqual({
      callsign: 'Scout1',
      groups: [
        { name: 'Blue', description: '', direction: 'both' },
        { name: 'HQ Net', description: '', direction: 'out' },
      ],
    });
    const [event] = await listRecentAuditEvents(db(), 1);
    expect(event).toMatchObject({
      action: 'member.groups',
      target: 'Scout1',
      detail: {
        groups: [
          { name: 'Blue', direction: 'both' },
          { name: 'HQ Net', direction: 'out' },
        ],
        was: [],
      },
    });
    const listed = await groups();
    expect(listed.find((group) => group.name === 'HQ Net')?.members).toEqual([
      { callsign: 'Scout1', direction: 'out' },
    ]);
    // The member reads their own.
    const mine = await portal.api('mtls', 'GET', apiPaths.myGroups, { key: member });
    expect(mine.status, mine.text).toBe(200);
    expect(memberGroupsResponseSchema.parse(mine.json()).groups.map((g) => g.name)).toEqual([
      'Blue',
      'HQ Net',
    ]);
    // Replaced as a whole.
    const fewer = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [{ name: 'HQ Net', direction: 'in' }],
    });
    expect(fewer.status).toBe(200);
    expect((await memberGroups('Scout1')).groups).toEqual([
      { name: 'HQ Net', description: '', direction: 'in' },
    ]);
  });

  it('refuses unknown groups (400, naming them), unknown members (404) and a group twice (422), writing nothing', async () => {
    const before = await snapshotTables(db());
    const unknownGroup = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [{ name: 'Blue' }, { name: 'Ghost' }, { name: 'Phantom' }],
    });
    expect(unknownGroup.status).toBe(400);
    expect(detailOf(unknownGroup)).toBe('No such group: Ghost, Phantom');
    const unknownMember = await asAdmin('PUT', apiPaths.personGroups('Nobody1'), {
      groups: [{ name: 'Blue' }],
    });
    expect(unknownMember.status).toBe(404);
    const twice = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [{ name: 'Blue' }, { name: 'BLUE', direction: 'in' }],
    });
    expect(twice.status).toBe(422);
    const badDirection = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [{ name: 'Blue', direction: 'sideways' }],
    });
    expect(badDirection.status).toBe(422);
    expect(await snapshotTables(db())).toBe(before);
  });

  it('refuses to delete a group with members (409) unless forced, then takes them out', async () => {
    await createGroup('Green');
    await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [{ name: 'Green' }, { name: 'HQ Net', direction: 'in' }],
    });
    const before = await snapshotTables(db());
    const refused = await asAdmin('DELETE', apiPaths.group('green'));
    expect(refused.status).toBe(409);
    expect(detailOf(refused)).toMatch(/Green has 1 member/);
    expect(await snapshotTables(db())).toBe(before);
    const forced = await asAdmin('DELETE', `${apiPaths.group('Green')}?force=true`);
    expect(forced.status, forced.text).toBe(200);
    expect(deleteGroupResponseSchema.parse(forced.json())).toEqual({
      success: true,
      name: 'Green',
      members_removed: 1,
    });
    expect((await memberGroups('Scout1')).groups.map((group) => group.name)).toEqual(['HQ Net']);
    const [event] = await listRecentAuditEvents(db(), 1);
    expect(event).toMatchObject({
      action: 'group.delete',
      target: 'Green',
      detail: { members_removed: 1, force: true },
    });
    expect((await asAdmin('DELETE', apiPaths.group('Green'))).status).toBe(404);
    await createGroup('Empty');
    expect((await asAdmin('DELETE', apiPaths.group('Empty'))).status).toBe(200);
  });

  it('gives the groups of an invite to the members it admits', async () => {
    await createGroup('Medics');
    const created = await asAdmin('POST', apiPaths.createInvite, {
      auto_approve: true,
      groups: [{ name: 'medics', direction: 'out' }],
    });
    expect(created.status, created.text).toBe(200);
    const code = createInviteResponseSchema.parse(created.json()).invite_code;
    const pools = poolsResponseSchema.parse((await asAdmin('GET', apiPaths.pools)).json()).pools;
    expect(pools.find((pool) => pool.invitecode === code)?.groups).toEqual([
      { name: 'Medics', direction: 'out' },
    ]);
    const enrolled = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'Medic7', invite_code: code },
    });
    expect(enrolled.status, enrolled.text).toBe(200);
    enrollResponseSchema.parse(enrolled.json());
    expect((await memberGroups('Medic7')).groups).toEqual([
      { name: 'Medics', description: '', direction: 'out' },
    ]);
    const before = await snapshotTables(db());
    const unknown = await asAdmin('POST', apiPaths.createInvite, { groups: [{ name: 'Nope' }] });
    expect(unknown.status).toBe(400);
    expect(detailOf(unknown)).toBe('No such group: Nope');
    expect(await snapshotTables(db())).toBe(before);
  });

  it('gives the groups of a bulk batch to each member enrolling with its slips', async () => {
    await createGroup('Recon');
    const response = await asAdmin('POST', apiPaths.bulk, {
      callsigns: ['Slip1', 'Slip2'],
      groups: [{ name: 'Recon', direction: 'in' }],
    });
    expect(response.status, response.text).toBe(200);
    const batch = bulkResponseSchema.parse(response.json());
    const slip = batch.slips.find((entry) => entry.callsign === 'Slip2');
    const enrolled = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'Slip2', invite_code: slip?.invite_code },
    });
    expect(enrolled.status, enrolled.text).toBe(200);
    expect((await memberGroups('Slip2')).groups).toEqual([
      { name: 'Recon', description: '', direction: 'in' },
    ]);
    const before = await snapshotTables(db());
    const unknown = await asAdmin('POST', apiPaths.bulk, {
      callsigns: ['Slip3'],
      groups: [{ name: 'Nope' }],
    });
    expect(unknown.status).toBe(400);
    expect(await snapshotTables(db())).toBe(before);
  });

  it('answers no directory on the embedded default', async () => {
    const response = await asAdmin('GET', apiPaths.directory);
    expect(response.status, response.text).toBe(200);
    expect(response.json()).toEqual({
      configured: false,
      url: null,
      base_dn: null,
      in_sync: false,
      last_sync: null,
      last_error: null,
      pending: 0,
      entry_errors: [],
    });
  });
});
