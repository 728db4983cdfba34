import { describe, expect, it } from 'vitest';
import {
  addAdminResponseSchema,
  apiPaths,
  bulkCheckResponseSchema,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  RESERVED_CALLSIGN_DETAIL,
  RESERVED_CALLSIGNS,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { generateCode } from '../../src/modules/auth/codes.js';
import { createAdminCode } from '../../src/modules/firstuser/admin-code.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import type { ApiResponse } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * Reserved callsigns (docs/api.md#sign-in-and-enrollment): names a TAK Server or this portal uses for itself, plus
 * the operator's PORTAL_RESERVED_CALLSIGNS, are refused at enroll and add-admin in any case,
 * and a bulk list counts them as taken.
 */

/** The spec's list is pinned in config.test.ts; here each name of it is refused. */
const BUILT_IN: readonly string[] = RESERVED_CALLSIGNS;

function detailOf(response: ApiResponse): unknown {
  return errorResponseSchema.parse(response.json()).detail;
}

describe.each(testEngines())('reserved callsigns on $name', (engine) => {
  let t: InjectPortal;
  portalOnScratchDatabase(
    engine,
    async (env) =>
      (t = await openInjectPortal({
        env: {
          ...env,
          PORTAL_RESERVED_CALLSIGNS: 'Ops1, hqStaff',
          PORTAL_RATE_LIMIT_FAILURES: '1000',
        },
      })),
  );
  const db = () => t.portal.database.db;

  async function invite(): Promise<string> {
    const code = generateCode(8);
    await insertInviteCode(db(), { code, createdAt: Date.now(), ownerCallsign: null });
    return code;
  }

  const enroll = (callsign: string, code: string) =>
    t.api('public', 'POST', apiPaths.enroll, { json: { callsign, invite_code: code } });

  const variants = [
    ...BUILT_IN,
    ...BUILT_IN.map((name) => name.toUpperCase()),
    'Admin',
    'TakServer',
    'ops1',
    'HQSTAFF',
  ];

  it('refuses each at enroll with 400 and a clear detail, changing nothing', async () => {
    const code = await invite();
    const before = await snapshotTables(db(), { except: ['audit_events'] });
    for (const callsign of variants) {
      const response = await enroll(callsign, code);
      expect(response.status, callsign).toBe(400);
      expect(detailOf(response)).toBe(RESERVED_CALLSIGN_DETAIL);
    }
    expect(await snapshotTables(db(), { except: ['audit_events'] })).toBe(before);
    // A name that only contains one is free.
    expect((await enroll('Admin2', code)).status).toBe(200);
  });

  it('refuses each at add-admin, leaving the first-admin session unspent', async () => {
    const { code } = await createAdminCode(db(), { ttlMs: 60_000, actor: 'test' });
    const exchanged = await t.api('public', 'POST', apiPaths.exchangeCode, { json: { code } });
    const { jwt } = exchangeCodeResponseSchema.parse(exchanged.json());
    for (const callsign of ['Root', 'administrator', 'OPS1']) {
      const response = await t.api('public', 'POST', apiPaths.addAdmin, {
        json: { callsign },
        bearer: jwt,
      });
      expect(response.status, callsign).toBe(400);
      expect(detailOf(response)).toBe(RESERVED_CALLSIGN_DETAIL);
    }
    const added = await t.api('public', 'POST', apiPaths.addAdmin, {
      json: { callsign: 'Boss7' },
      bearer: jwt,
    });
    expect(added.status, added.text).toBe(200);
    expect(addAdminResponseSchema.parse(added.json()).admin_added).toBe(true);
  });

  it('counts them as taken in a bulk list', async () => {
    const admin = await t.addMember('Chief9', { roles: ['admin'] });
    const check = await t.api('mtls', 'POST', apiPaths.bulkCheck, {
      json: { callsigns: ['Tak', 'Squad1', 'ops1'] },
      key: admin,
    });
    expect(check.status, check.text).toBe(200);
    expect(bulkCheckResponseSchema.parse(check.json()).callsigns).toEqual([
      { callsign: 'Tak', problem: 'taken' },
      { callsign: 'Squad1', problem: null },
      { callsign: 'ops1', problem: 'taken' },
    ]);
    const bulk = await t.api('mtls', 'POST', apiPaths.bulk, {
      json: { callsigns: ['Squad1', 'NOBODY'] },
      key: admin,
    });
    expect(bulk.status).toBe(400);
    expect(detailOf(bulk)).toContain('"NOBODY" (taken)');
  });
});
