import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connection.js';
import { testEngines, type ScratchDatabase } from '../../db/test-engines.testing.js';
import { listRecentAuditEvents } from '../audit/recent-events.testing.js';
import { insertInviteCode, listInviteCodes } from './repository.js';
import { CREATE_ATTEMPTS, InviteService } from './service.js';

const T = 1_767_225_600_000;
const actor = { callsign: 'Boss', clientAddress: '192.0.2.1' };

/** A code generator that hands out `codes` in order. */
function scripted(codes: string[]): () => string {
  let next = 0;
  return () => codes[next++] ?? 'UNUSED22';
}

describe.each(testEngines())('invite service on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    handle = await scratch.openMigrated();
    await insertInviteCode(handle.db, { code: 'TAKEN222', createdAt: T, ownerCallsign: null });
  });
  afterAll(() => scratch.drop());

  it('create retries when the new code collides with a stored one, and audits the one it made', async () => {
    const invites = new InviteService(
      handle.db,
      () => new Date(T + 1),
      scripted(['TAKEN222', 'FRESH222']),
    );

    expect(await invites.create(actor)).toBe('FRESH222');

    const codes = await listInviteCodes(handle.db);
    expect(codes.map((code) => [code.code, code.ownerCallsign, code.createdAt])).toEqual([
      ['FRESH222', 'Boss', T + 1],
      ['TAKEN222', null, T],
    ]);
    const events = await listRecentAuditEvents(handle.db);
    expect(events.map((event) => [event.action, event.target, event.actor])).toEqual([
      ['invite.create', 'FRESH222', 'Boss'],
    ]);
  });

  it(`create gives up after ${CREATE_ATTEMPTS} collisions, writing nothing`, async () => {
    const invites = new InviteService(
      handle.db,
      () => new Date(T + 2),
      () => 'TAKEN222',
    );
    const before = await listRecentAuditEvents(handle.db);

    await expect(invites.create(actor)).rejects.toThrow(/no free invite code/);

    expect(await listRecentAuditEvents(handle.db)).toEqual(before);
    expect(await listInviteCodes(handle.db)).toHaveLength(2);
  });
});
