import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedTestCa } from '../../ca/test-ca.testing.js';
import { loadConfig } from '../../config.js';
import { openPortal, type Portal } from '../../portal.js';
import { findMemberByCallsign } from '../../modules/people/repository.js';
import {
  createTestMember,
  loadRevokedTestKey,
  retireTestMember,
  saveRevokedTestKey,
} from './test-member.js';

const TARGET = { host: 'tak.example.org', port: 8089 };
const T = new Date(Date.UTC(2026, 0, 24, 12, 30, 0));

describe('the tak-check test member', () => {
  let dir: string;
  let portal: Portal;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tak-check-member-'));
    const config = loadConfig({ PORTAL_DATA_DIR: path.join(dir, 'data') });
    await seedTestCa(config.caDir, config.host);
    portal = await openPortal(config, { migrate: true });
  });
  afterAll(async () => {
    await portal.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is named TakCheck{UTC time}, audited, and refuses a second one in the same millisecond', async () => {
    const member = await createTestMember(portal, T, TARGET);
    expect(member.callsign).toBe('TakCheck20260124123000000');
    expect(member.issued.commonName).toBe('TakCheck20260124123000000');
    const audit = await portal.database.db
      .selectFrom('audit_events')
      .select(['actor', 'action', 'outcome', 'detail'])
      .where('target', '=', member.callsign)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      {
        actor: 'cli',
        action: 'tak-check.member',
        outcome: 'success',
        detail: JSON.stringify({ takHost: 'tak.example.org', takPort: 8089 }),
      },
      {
        actor: 'cli',
        action: 'tak-check.certificate',
        outcome: 'success',
        detail: JSON.stringify({ serial: member.issued.serial }),
      },
    ]);
    await expect(createTestMember(portal, T, TARGET)).rejects.toThrow('exists already');
    await retireTestMember(portal, member.callsign);
    expect((await findMemberByCallsign(portal.database.db, member.callsign))?.status).toBe(
      'revoked',
    );
  });

  it('is revoked at once when its certificate cannot be issued', async () => {
    const failing = Object.create(portal) as Portal;
    failing.certificates = Object.create(portal.certificates) as Portal['certificates'];
    vi.spyOn(failing.certificates, 'issueForMember').mockRejectedValue(new Error('CA offline'));
    const at = new Date(T.getTime() + 1000);
    await expect(createTestMember(failing, at, TARGET)).rejects.toThrow('CA offline');
    expect(
      (await findMemberByCallsign(portal.database.db, 'TakCheck20260124123001000'))?.status,
    ).toBe('revoked');
  });

  it('keeps a revoked test key (0600) and gives it back only while the record shows it revoked', async () => {
    const now = new Date();
    expect(await loadRevokedTestKey(portal, now)).toBeUndefined();
    const member = await createTestMember(portal, new Date(T.getTime() + 2000), TARGET);
    await saveRevokedTestKey(portal, member.issued);
    const file = path.join(portal.config.dataDir, 'tak-check', 'revoked-test-key.pem');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Not revoked yet: not a revoked test key.
    expect(await loadRevokedTestKey(portal, now)).toBeUndefined();
    await retireTestMember(portal, member.callsign);
    const kept = await loadRevokedTestKey(portal, now);
    expect(kept).toMatchObject({ callsign: member.callsign, serial: member.issued.serial });
    expect(kept?.identity.privateKeyPem).toBe(member.issued.privateKeyPem);
    // Within a month of its expiry it is replaced.
    const late = new Date(member.issued.notAfter.getTime() - 29 * 24 * 3_600_000);
    expect(await loadRevokedTestKey(portal, late)).toBeUndefined();
    await writeFile(file, 'garbage');
    expect(await loadRevokedTestKey(portal, now)).toBeUndefined();
  });
});
