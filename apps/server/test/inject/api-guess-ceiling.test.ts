import { describe, expect, it } from 'vitest';
import {
  apiPaths,
  bulkResponseSchema,
  checkInviteCodeResponseSchema,
  CODE_ALPHABET,
  createInviteResponseSchema,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { generateCode } from '../../src/modules/auth/codes.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

/**
 * The guess ceiling (docs/api.md, "Guessing is throttled"): past PORTAL_GUESS_CEILING_PER_MINUTE
 * failed guesses a minute across the deployment, a stranger's guess answers 429 whatever their
 * address, while a member with a valid key is never slowed by it.
 */
describe.each(testEngines())('the guess ceiling on $name', (engine) => {
  let t: InjectPortal;
  portalOnScratchDatabase(
    engine,
    async (env) =>
      (t = await openInjectPortal({
        env: { ...env, PORTAL_GUESS_CEILING_PER_MINUTE: '5', PORTAL_RATE_LIMIT_FAILURES: '100' },
      })),
  );

  const checkInvite = (code: string, from: string) =>
    t.api('public', 'GET', `${apiPaths.checkInviteCode}?invitecode=${code}`, {
      headers: { 'x-forwarded-for': from },
    });

  it('slows every stranger once the deployment made its failed guesses of the minute', async () => {
    const admin = await t.addMember('Boss1', { roles: ['admin'] });
    const code = generateCode(8);
    await insertInviteCode(t.portal.database.db, {
      code,
      createdAt: Date.now(),
      ownerCallsign: null,
    });
    // Five guessers, each of a different /64, each one wrong guess: all evaluated.
    for (let guesser = 1; guesser <= 5; guesser += 1) {
      const response = await checkInvite('WRONG234', `2001:db8:${String(guesser)}::1`);
      expect(response.status).toBe(200);
      expect(checkInviteCodeResponseSchema.parse(response.json()).invitecode_is_active).toBe(false);
    }
    // The sixth, from anywhere, waits out the minute, even with a right code.
    for (const from of ['2001:db8:6::1', '198.51.100.6']) {
      const refused = await checkInvite(code, from);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // An admin's key still has its guess evaluated: a wrong approval code is 403, not 429.
    const accepted = await t.api('mtls', 'POST', apiPaths.accept, {
      json: { callsign: 'Nobody1', approvecode: 'WRONG234' },
      key: admin,
    });
    expect(accepted.status).not.toBe(429);
    expect((await t.api('mtls', 'GET', apiPaths.checkAuthValidUser, { key: admin })).status).toBe(
      200,
    );
    expect(await t.portal.metrics.text()).toMatch(
      /^callsign_portal_guess_ceiling_refusals_total 2$/m,
    );
  });

  it("makes auto-approving codes 12 characters long, as the guess ceiling's arithmetic needs", async () => {
    const admin = await t.addMember('Boss2', { roles: ['admin'] });
    const create = async (json: Record<string, unknown>) => {
      const response = await t.api('mtls', 'POST', apiPaths.createInvite, { json, key: admin });
      expect(response.status, response.text).toBe(200);
      return createInviteResponseSchema.parse(response.json()).invite_code;
    };
    const alphabet = (length: number) => new RegExp(`^[${CODE_ALPHABET}]{${String(length)}}$`);
    expect(await create({ auto_approve: true })).toMatch(alphabet(12));
    expect(await create({ auto_approve: false })).toMatch(alphabet(8));
    const bulk = await t.api('mtls', 'POST', apiPaths.bulk, {
      json: { callsigns: ['Slip1', 'Slip2'] },
      key: admin,
    });
    expect(bulk.status, bulk.text).toBe(200);
    for (const slip of bulkResponseSchema.parse(bulk.json()).slips) {
      expect(slip.invite_code).toMatch(alphabet(12));
    }
  });
});
