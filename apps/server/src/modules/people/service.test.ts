import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../ca/authority.js';
import type { DatabaseHandle } from '../../db/connection.js';
import { testEngines, type ScratchDatabase } from '../../db/test-engines.testing.js';
import { listRecentAuditEvents } from '../audit/repository.js';
import { CertificateService } from '../certificates/service.js';
import { findMemberByCallsign, insertMember } from './repository.js';
import { PeopleService } from './service.js';

const T = 1_767_225_600_000;

// Over HTTP an admin acting on another admin always leaves themselves, so the last-admin rule
// shows there only in races (test/api-admin-keys.test.ts). Here the actor is not an admin.
describe.each(testEngines())('people service on $name', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;
  let people: PeopleService;
  const helper = { callsign: 'Helper', clientAddress: null };

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    handle = await scratch.openMigrated();
    const ca = await CertificateAuthority.loadOrCreate({
      dir: path.join(scratch.dataDir, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
    });
    const certificates = new CertificateService(handle.db, ca, {
      validityDays: 30,
      keyAlgorithm: 'ecdsa-p256',
    });
    people = new PeopleService(handle.db, certificates, () => new Date(T + 1));
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
