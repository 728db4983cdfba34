import { describe, expect, it } from 'vitest';
import { apiPaths, errorResponseSchema } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// Minting is bounded (docs/api.md): at most PORTAL_KEYS_PER_HOUR (default 10) new keys per
// member in any hour, key downloads and TAK packages alike, counted in the database. The other
// bounds (one mint in flight per member, the slots) are shown deterministically in
// src/modules/certificates/member-issuance.test.ts.

describe.each(testEngines())('key limits through the API on $name', (engine) => {
  let portal: InjectPortal;

  portalOnScratchDatabase(engine, async (env) => {
    // EC keys are quick to make; the limit is the default one.
    portal = await openInjectPortal({ env: { ...env, PORTAL_KEY_ALGORITHM: 'ecdsa-p256' } });
    return portal;
  });

  it('the 11th key of the hour, by download or TAK packages, is 429 with Retry-After; nothing is written', async () => {
    // The member's first key.
    const key = await portal.addMember('Busy1');
    for (let n = 2; n <= 9; n++) {
      const download = await portal.api('mtls', 'GET', apiPaths.keyDownload('Busy1'), { key });
      expect(download.status, `key ${n}: ${download.text}`).toBe(200);
    }
    const packages = await portal.api('mtls', 'GET', apiPaths.instructions, { key });
    expect(packages.status, packages.text).toBe(200);
    const before = await snapshotTables(portal.portal.database.db);

    for (const path of [apiPaths.keyDownload('Busy1'), apiPaths.instructions]) {
      const refused = await portal.api('mtls', 'GET', path, { key });
      expect(refused.status, refused.text).toBe(429);
      errorResponseSchema.parse(refused.json());
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    expect(await snapshotTables(portal.portal.database.db)).toBe(before);

    // Another member is not affected.
    const other = await portal.addMember('Calm2');
    const theirs = await portal.api('mtls', 'GET', apiPaths.keyDownload('Calm2'), { key: other });
    expect(theirs.status, theirs.text).toBe(200);
  });
});
