import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connection.js';
import { testEngines } from '../../db/test-engines.testing.js';
import type { ScratchDatabase } from '../../db/test-engines.testing.js';
import {
  addMemberRole,
  countActiveAdmins,
  findMemberByCallsign,
  insertMember,
  listActiveMembersJson,
  removeMemberRole,
  setMemberStatus,
} from './repository.js';

const T = 1_767_225_600_000;

describe.each(testEngines())('people repository on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    handle = await scratch.openMigrated();
    await handle.db
      .insertInto('invite_codes')
      .values({ code: 'INVITE22', created_at: T })
      .execute();
  });
  afterAll(() => scratch.drop());

  it('inserts a member with roles and finds it by callsign in any case', async () => {
    const inserted = await insertMember(handle.db, {
      callsign: 'Echo1',
      status: 'active',
      inviteCode: null,
      roles: ['admin'],
      at: T,
    });

    expect(inserted).toBe(true);
    expect(await findMemberByCallsign(handle.db, 'ECHO1')).toEqual({
      callsign: 'Echo1',
      status: 'active',
      inviteCode: null,
      createdAt: T,
      updatedAt: T,
      revokedAt: null,
      roles: ['admin'],
    });
    expect(await findMemberByCallsign(handle.db, 'echo2')).toBeUndefined();
  });

  it('refuses a callsign taken in another case, writing nothing', async () => {
    await insertMember(handle.db, {
      callsign: 'Fox',
      status: 'pending',
      inviteCode: 'INVITE22',
      roles: [],
      at: T,
    });

    const again = await insertMember(handle.db, {
      callsign: 'FOX',
      status: 'active',
      inviteCode: null,
      roles: ['admin'],
      at: T + 1,
    });

    expect(again).toBe(false);
    const fox = await findMemberByCallsign(handle.db, 'fox');
    expect(fox).toMatchObject({
      callsign: 'Fox',
      status: 'pending',
      inviteCode: 'INVITE22',
      roles: [],
    });
  });

  it('gives exactly one success to 20 parallel inserts of one callsign in different cases', async () => {
    const spellings = Array.from({ length: 20 }, (_, i) =>
      Array.from('racer', (ch, j) => ((i >> j) & 1 ? ch.toUpperCase() : ch)).join(''),
    );
    expect(new Set(spellings).size).toBe(20);

    const results = await Promise.all(
      spellings.map((callsign) =>
        insertMember(handle.db, {
          callsign,
          status: 'pending',
          inviteCode: 'INVITE22',
          roles: [],
          at: T,
        }),
      ),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
    const rows = await handle.db
      .selectFrom('members')
      .select('callsign')
      .where((eb) => eb(eb.fn('lower', ['callsign']), '=', 'racer'))
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.callsign).toBe(spellings[results.indexOf(true)]);
  });

  it('inside a caller’s transaction a taken callsign returns false and the transaction goes on', async () => {
    await insertMember(handle.db, {
      callsign: 'golf',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });

    const outcome = await handle.db.transaction().execute(async (trx) => {
      const taken = await insertMember(trx, {
        callsign: 'GOLF',
        status: 'pending',
        inviteCode: null,
        roles: [],
        at: T,
      });
      const other = await insertMember(trx, {
        callsign: 'Golf2',
        status: 'pending',
        inviteCode: null,
        roles: [],
        at: T,
      });
      return { taken, other };
    });

    expect(outcome).toEqual({ taken: false, other: true });
    expect(await findMemberByCallsign(handle.db, 'golf2')).toBeDefined();
  });

  it('sets the status, with revoked_at following a revocation', async () => {
    await insertMember(handle.db, {
      callsign: 'Hotel',
      status: 'pending',
      inviteCode: 'INVITE22',
      roles: [],
      at: T,
    });

    expect(await setMemberStatus(handle.db, 'hotel', { status: 'active', at: T + 1 })).toBe(true);
    expect(await findMemberByCallsign(handle.db, 'Hotel')).toMatchObject({
      status: 'active',
      updatedAt: T + 1,
      revokedAt: null,
    });

    expect(await setMemberStatus(handle.db, 'HOTEL', { status: 'revoked', at: T + 2 })).toBe(true);
    expect(await findMemberByCallsign(handle.db, 'Hotel')).toMatchObject({
      status: 'revoked',
      updatedAt: T + 2,
      revokedAt: T + 2,
    });
    expect(await setMemberStatus(handle.db, 'nobody', { status: 'active', at: T })).toBe(false);
  });

  it('with `from`, changes only a member in one of those states: one of two racing decisions wins', async () => {
    await insertMember(handle.db, {
      callsign: 'India',
      status: 'pending',
      inviteCode: 'INVITE22',
      roles: [],
      at: T,
    });

    const [accept, reject] = await Promise.all([
      setMemberStatus(handle.db, 'india', { status: 'active', at: T + 1, from: ['pending'] }),
      setMemberStatus(handle.db, 'india', { status: 'rejected', at: T + 1, from: ['pending'] }),
    ]);

    expect([accept, reject].filter(Boolean)).toHaveLength(1);
    expect(await setMemberStatus(handle.db, 'india', { status: 'active', at: T, from: [] })).toBe(
      false,
    );
  });

  it('adds and removes roles, case-insensitively, reporting whether anything changed', async () => {
    await insertMember(handle.db, {
      callsign: 'Juliet',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });

    expect(await addMemberRole(handle.db, 'JULIET', 'admin')).toBe(true);
    expect(await addMemberRole(handle.db, 'juliet', 'admin')).toBe(false);
    expect(await addMemberRole(handle.db, 'nobody', 'admin')).toBe(false);
    expect((await findMemberByCallsign(handle.db, 'Juliet'))?.roles).toEqual(['admin']);

    expect(await removeMemberRole(handle.db, 'juliet', 'admin')).toBe(true);
    expect(await removeMemberRole(handle.db, 'Juliet', 'admin')).toBe(false);
    expect((await findMemberByCallsign(handle.db, 'Juliet'))?.roles).toEqual([]);
  });

  it('counts active admins and lists active members with roles, by callsign', async () => {
    const scratchDb = await engine.createScratchDatabase();
    try {
      const { db } = await scratchDb.openMigrated();
      const add = (callsign: string, status: 'active' | 'revoked' | 'pending', admin: boolean) =>
        insertMember(db, {
          callsign,
          status,
          inviteCode: null,
          roles: admin ? ['admin'] : [],
          at: T,
        });
      expect(await listActiveMembersJson(db)).toBe('[]');
      await add('zulu', 'active', true);
      await add('Alpha', 'active', false);
      await add('mike', 'active', true);
      await add('Kilo', 'revoked', true);
      await add('lima', 'pending', false);
      await add('9niner', 'active', false);

      expect(await countActiveAdmins(db)).toBe(2);
      expect(JSON.parse(await listActiveMembersJson(db))).toEqual([
        { callsign: '9niner', roles: [] },
        { callsign: 'Alpha', roles: [] },
        { callsign: 'mike', roles: ['admin'] },
        { callsign: 'zulu', roles: ['admin'] },
      ]);
    } finally {
      await scratchDb.drop();
    }
  });
});
