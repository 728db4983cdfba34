import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestCa } from '../../ca/test-ca.testing.js';
import { demoteMember } from '../../commands/demote-member.js';
import { revokeMemberAsAdmin } from '../../commands/revoke-member.js';
import type { DatabaseHandle } from '../../db/connection.js';
import {
  testEngines,
  type ScratchDatabase,
  type TestEngine,
} from '../../db/test-engines.testing.js';
import { listRecentAuditEvents } from '../audit/recent-events.testing.js';
import { CertificateService } from '../certificates/service.js';
import { Membership } from './membership.js';
import { findMemberByCallsign, insertMember, setMemberStatus } from './repository.js';
import type { Actor } from '../auth/actor.js';
import { PeopleService } from './service.js';

const T = 1_767_225_600_000;

/** A migrated scratch database with a CA and the certificate service over it. */
async function openWithCertificates(engine: TestEngine) {
  const scratch = await engine.createScratchDatabase();
  const handle = await scratch.openMigrated();
  const ca = await loadTestCa({
    dir: path.join(scratch.dataDir, 'ca'),
    publicBaseUrl: 'https://portal.example.org',
  });
  const certificates = new CertificateService(
    handle.db,
    ca,
    { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
    { members: new Membership(handle.db) },
  );
  return { scratch, handle, certificates };
}

/** What an admin does with members, as the routes call it: the service and the two commands. */
function adminActions(db: DatabaseHandle['db'], certificates: CertificateService) {
  const now = () => new Date(T + 1);
  const people = new PeopleService(db, now);
  return {
    listActiveJson: () => people.listActiveJson(),
    promote: (actor: Actor, callsign: string) => people.promote(actor, callsign),
    demote: (actor: Actor, callsign: string) => demoteMember(db, actor, callsign, now()),
    revoke: (actor: Actor, callsign: string) =>
      revokeMemberAsAdmin(db, certificates, actor, callsign, now()),
  };
}
type AdminActions = ReturnType<typeof adminActions>;

// Over HTTP an admin acting on another admin always leaves themselves, so the last-admin rule
// shows there only in races (test/api-admin-keys.test.ts). Here the actor is not an admin.
describe.each(testEngines())('people service on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;
  let people: AdminActions;
  const helper = { callsign: 'Helper', clientAddress: null };

  beforeAll(async () => {
    let certificates: CertificateService;
    ({ scratch, handle, certificates } = await openWithCertificates(engine));
    people = adminActions(handle.db, certificates);
    for (const [callsign, status, admin] of [
      ['Solo', 'active', true],
      ['Helper', 'active', false],
      ['Former', 'revoked', true],
    ] as const) {
      await insertMember(handle.db, {
        callsign,
        status,
        inviteCode: null,
        roles: admin ? ['admin'] : [],
        at: T,
      });
    }
  });
  afterAll(() => scratch.drop());

  it('refuses to demote or revoke the only active admin (a revoked admin does not count), writing nothing', async () => {
    await expect(people.demote(helper, 'solo')).rejects.toMatchObject({
      statusCode: 409,
      detail: 'The last admin cannot be demoted',
    });
    await expect(people.revoke(helper, 'SOLO')).rejects.toMatchObject({
      statusCode: 409,
      detail: 'The last admin cannot be revoked',
    });

    expect(await findMemberByCallsign(handle.db, 'Solo')).toMatchObject({
      status: 'active',
      roles: ['admin'],
    });
    expect(await listRecentAuditEvents(handle.db)).toEqual([]);
  });

  it('with a second admin, the first can be demoted', async () => {
    expect(await people.promote(helper, 'helper')).toBe('Helper is now an admin');
    expect(await people.demote(helper, 'Solo')).toBe('Solo is no longer an admin');
    expect((await findMemberByCallsign(handle.db, 'Solo'))?.roles).toEqual([]);
  });
});

describe.each(testEngines())('the member list on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;
  let instanceA: AdminActions;
  let instanceB: AdminActions;
  const actor = { callsign: 'Nobody', clientAddress: null };

  beforeAll(async () => {
    let certificates: CertificateService;
    ({ scratch, handle, certificates } = await openWithCertificates(engine));
    // Two services on one database: two instances of the portal.
    instanceA = adminActions(handle.db, certificates);
    instanceB = adminActions(handle.db, certificates);
  });
  afterAll(() => scratch.drop());

  const listedBy = async (instance: AdminActions) =>
    JSON.parse(await instance.listActiveJson()) as { callsign: string; roles: string[] }[];
  const add = (callsign: string, status: 'active' | 'pending', admin = false) =>
    insertMember(handle.db, {
      callsign,
      status,
      inviteCode: null,
      roles: admin ? ['admin'] : [],
      at: T,
    });

  it('follows every change, whichever instance made it, and is the same on each', async () => {
    expect(await listedBy(instanceA)).toEqual([]);
    await add('Alpha', 'active', true);
    await add('Bravo', 'active');
    await add('Waiting', 'pending');
    const both = [
      { callsign: 'Alpha', roles: ['admin'] },
      { callsign: 'Bravo', roles: [] },
    ];
    expect(await listedBy(instanceA)).toEqual(both);
    expect(await listedBy(instanceA)).toEqual(both);

    await instanceB.promote(actor, 'Bravo');
    expect(await listedBy(instanceA)).toEqual([
      { callsign: 'Alpha', roles: ['admin'] },
      { callsign: 'Bravo', roles: ['admin'] },
    ]);
    await instanceB.demote(actor, 'Alpha');
    expect(await listedBy(instanceA)).toEqual([
      { callsign: 'Alpha', roles: [] },
      { callsign: 'Bravo', roles: ['admin'] },
    ]);
    // One member leaves and another arrives between two reads: the count stays the same.
    await instanceB.revoke(actor, 'Alpha');
    await setMemberStatus(handle.db, 'Waiting', { status: 'active', at: T + 2 });
    const after = [
      { callsign: 'Bravo', roles: ['admin'] },
      { callsign: 'Waiting', roles: [] },
    ];
    expect(await listedBy(instanceA)).toEqual(after);
    expect(await listedBy(instanceB)).toEqual(after);

    // A write over another connection (on SQLite: the CLI's) shows too.
    const other = scratch.open();
    try {
      await insertMember(other.db, {
        callsign: 'Charlie',
        status: 'active',
        inviteCode: null,
        roles: [],
        at: T,
      });
    } finally {
      await other.close();
    }
    expect((await listedBy(instanceA)).map((member) => member.callsign)).toEqual([
      'Bravo',
      'Charlie',
      'Waiting',
    ]);
  });
});
