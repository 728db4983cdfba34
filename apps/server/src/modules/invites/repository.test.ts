import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connection.js';
import { testEngines, type ScratchDatabase } from '../../db/test-engines.testing.js';
import {
  deleteInviteCode,
  findInviteCode,
  insertInviteCode,
  inviteCodeState,
  listInviteCodes,
  recordInviteUse,
  setInviteCodeActive,
  type InviteCode,
} from './repository.js';

const T = 1_767_225_600_000;

describe.each(testEngines())('invites repository on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    handle = await scratch.openMigrated();
  });
  afterAll(() => scratch.drop());

  /** Whether the code admitted one more enrollment (and counted it). */
  const admits = async (code: string, now: number) =>
    (await recordInviteUse(handle.db, code, now)) !== undefined;

  const stored = async (code: string): Promise<InviteCode> => {
    const found = await findInviteCode(handle.db, code);
    expect(found).toBeDefined();
    return found!;
  };

  it('inserts a code once: the primary key refuses the same code again, writing nothing', async () => {
    expect(
      await insertInviteCode(handle.db, { code: 'AAAA2222', createdAt: T, ownerCallsign: 'Boss' }),
    ).toBe(true);
    expect(
      await insertInviteCode(handle.db, {
        code: 'AAAA2222',
        createdAt: T + 1,
        ownerCallsign: 'Other',
      }),
    ).toBe(false);
    expect(await stored('aaaa2222')).toMatchObject({
      code: 'AAAA2222',
      createdAt: T,
      ownerCallsign: 'Boss',
      useCount: 0,
      deactivatedAt: null,
      deletedAt: null,
    });
  });

  it('a usable code admits people and counts each use', async () => {
    await insertInviteCode(handle.db, { code: 'BBBB2222', createdAt: T, ownerCallsign: null });
    expect(inviteCodeState(await stored('BBBB2222'), T)).toBe('usable');
    expect(await admits('bbbb2222', T)).toBe(true);
    expect(await admits('BBBB2222', T)).toBe(true);
    expect((await stored('BBBB2222')).useCount).toBe(2);
  });

  it('a deactivated code admits nobody until activated again; both calls are idempotent', async () => {
    await insertInviteCode(handle.db, { code: 'CCCC2222', createdAt: T, ownerCallsign: null });
    expect(await setInviteCodeActive(handle.db, 'cccc2222', false, T + 1)).toBe('done');
    expect(await setInviteCodeActive(handle.db, 'CCCC2222', false, T + 2)).toBe('done');
    const deactivated = await stored('CCCC2222');
    expect(deactivated.deactivatedAt).toBe(T + 1);
    expect(inviteCodeState(deactivated, T + 3)).toBe('deactivated');
    expect(await admits('CCCC2222', T + 3)).toBe(false);
    expect((await stored('CCCC2222')).useCount).toBe(0);

    expect(await setInviteCodeActive(handle.db, 'CCCC2222', true, T + 4)).toBe('done');
    expect(await setInviteCodeActive(handle.db, 'CCCC2222', true, T + 5)).toBe('done');
    expect(inviteCodeState(await stored('CCCC2222'), T + 6)).toBe('usable');
    expect(await admits('CCCC2222', T + 6)).toBe(true);
  });

  it('a deleted code admits nobody, cannot be (de)activated or deleted again, and is not listed', async () => {
    await insertInviteCode(handle.db, { code: 'DDDD2222', createdAt: T, ownerCallsign: null });
    expect(await deleteInviteCode(handle.db, 'dddd2222', T + 1)).toBe(true);
    expect(await deleteInviteCode(handle.db, 'DDDD2222', T + 2)).toBe(false);
    const deleted = await stored('DDDD2222');
    expect(deleted.deletedAt).toBe(T + 1);
    expect(inviteCodeState(deleted, T + 3)).toBe('deleted');
    expect(await admits('DDDD2222', T + 3)).toBe(false);
    expect(await setInviteCodeActive(handle.db, 'DDDD2222', true, T + 3)).toBe('unknown');
    expect(await setInviteCodeActive(handle.db, 'DDDD2222', false, T + 3)).toBe('unknown');
    expect(await stored('DDDD2222')).toMatchObject({
      useCount: 0,
      deactivatedAt: null,
      deletedAt: T + 1,
    });
    expect((await listInviteCodes(handle.db)).map((code) => code.code)).not.toContain('DDDD2222');
  });

  it('a deleted code that was deactivated says deleted', async () => {
    await insertInviteCode(handle.db, { code: 'EEEE2222', createdAt: T, ownerCallsign: null });
    await setInviteCodeActive(handle.db, 'EEEE2222', false, T + 1);
    await deleteInviteCode(handle.db, 'EEEE2222', T + 2);
    expect(inviteCodeState(await stored('EEEE2222'), T + 3)).toBe('deleted');
    expect(await admits('EEEE2222', T + 3)).toBe(false);
  });

  it('unknown codes: nothing to activate, deactivate, delete or use', async () => {
    expect(await findInviteCode(handle.db, 'ZZZZ9999')).toBeUndefined();
    expect(await setInviteCodeActive(handle.db, 'ZZZZ9999', true, T)).toBe('unknown');
    expect(await setInviteCodeActive(handle.db, 'ZZZZ9999', false, T)).toBe('unknown');
    expect(await deleteInviteCode(handle.db, 'ZZZZ9999', T)).toBe(false);
    expect(await admits('ZZZZ9999', T)).toBe(false);
  });

  it('lists codes not deleted, newest first', async () => {
    const scratchDb = await engine.createScratchDatabase();
    try {
      const { db } = await scratchDb.openMigrated();
      await insertInviteCode(db, { code: 'OLD22222', createdAt: T, ownerCallsign: 'Boss' });
      await insertInviteCode(db, { code: 'NEW22222', createdAt: T + 2, ownerCallsign: null });
      await insertInviteCode(db, { code: 'OFF22222', createdAt: T + 1, ownerCallsign: null });
      await insertInviteCode(db, { code: 'GONE2222', createdAt: T + 3, ownerCallsign: null });
      await setInviteCodeActive(db, 'OFF22222', false, T + 4);
      await deleteInviteCode(db, 'GONE2222', T + 4);
      const listed = await listInviteCodes(db);
      expect(listed.map((code) => [code.code, code.deactivatedAt, code.ownerCallsign])).toEqual([
        ['NEW22222', null, null],
        ['OFF22222', T + 4, null],
        ['OLD22222', null, 'Boss'],
      ]);
    } finally {
      await scratchDb.drop();
    }
  });
});
