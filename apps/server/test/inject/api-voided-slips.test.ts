import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  batchResponseSchema,
  bulkResponseSchema,
  errorResponseSchema,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { generateCode } from '../../src/modules/auth/codes.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * A bulk slip once void stays void (docs/api.md, "Bulk slips"): invitecode/activate does not
 * bring it back, however it was voided; other codes keep their idempotent toggle.
 */
describe.each(testEngines())('voided bulk slips on $name', (engine) => {
  let t: InjectPortal;
  let admin: MemberKey;
  portalOnScratchDatabase(engine, async (env) => (t = await openInjectPortal({ env })));

  beforeAll(async () => {
    admin = await t.addMember('Chief4', { roles: ['admin'] });
  });

  const put = (path: string, code: string) =>
    t.api('mtls', 'PUT', path, { json: { invite_code: code }, key: admin });

  async function batch(callsigns: string[]) {
    const response = await t.api('mtls', 'POST', apiPaths.bulk, {
      json: { callsigns },
      key: admin,
    });
    expect(response.status, response.text).toBe(200);
    return bulkResponseSchema.parse(response.json());
  }

  async function statesOf(batchId: string) {
    const response = await t.api('mtls', 'GET', apiPaths.batch(batchId), { key: admin });
    return batchResponseSchema.parse(response.json()).slips.map((slip) => slip.state);
  }

  it('refuses to activate a voided slip with 409, changing nothing', async () => {
    const made = await batch(['Slip1', 'Slip2']);
    const voided = await t.api('mtls', 'POST', apiPaths.voidBatch(made.batch_id), {
      key: admin,
    });
    expect(voided.status, voided.text).toBe(200);
    const before = await snapshotTables(t.portal.database.db);
    for (const { invite_code } of made.slips) {
      const response = await put(apiPaths.activateInvite, invite_code.toLowerCase());
      expect(response.status).toBe(409);
      expect(errorResponseSchema.parse(response.json()).detail).toMatch(
        /voided bulk slip.*cannot be activated again/,
      );
    }
    expect(await snapshotTables(t.portal.database.db)).toBe(before);
    expect(await statesOf(made.batch_id)).toEqual(['void', 'void']);
    const enroll = await t.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'Slip1', invite_code: made.slips[0]!.invite_code },
    });
    expect(enroll.status).toBe(400);
  });

  it('a slip deactivated one by one stays void too; a live slip’s activate is still a no-op', async () => {
    const made = await batch(['Slip3', 'Slip4']);
    const [first, second] = made.slips.map((slip) => slip.invite_code);
    expect((await put(apiPaths.activateInvite, second!)).status).toBe(200);
    expect((await put(apiPaths.deactivateInvite, first!)).status).toBe(200);
    expect((await put(apiPaths.activateInvite, first!)).status).toBe(409);
    expect(await statesOf(made.batch_id)).toEqual(['void', 'issued']);
  });

  it('leaves an ordinary invite code its toggle', async () => {
    const code = generateCode(8);
    await insertInviteCode(t.portal.database.db, {
      code,
      createdAt: Date.now(),
      ownerCallsign: 'Chief4',
    });
    expect((await put(apiPaths.deactivateInvite, code)).status).toBe(200);
    expect((await put(apiPaths.activateInvite, code)).status).toBe(200);
    const check = await t.api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=${code}`);
    expect(check.json()).toMatchObject({ invitecode_is_active: true });
  });
});
