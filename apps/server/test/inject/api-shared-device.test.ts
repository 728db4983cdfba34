import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, enrollResponseSchema, errorResponseSchema, takPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { generateCode } from '../../src/modules/auth/codes.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import type { ApiResponse } from '../support/api-client.js';
import { keyCallsFor } from '../support/api-routes.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * A shared device (docs/api.md#sign-in-and-enrollment): the enrollment JWT left in a browser stops handing out keys
 * 24 h after the member's first key, on every route that mints or turns into a key, while the
 * member's key and a member JWT (a renewal code's) keep their own rules.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(testEngines())('an enrollment token on a shared device on $name', (engine) => {
  let t: InjectPortal;
  portalOnScratchDatabase(engine, async (env) => (t = await openInjectPortal({ env })));

  const db = () => t.portal.database.db;

  /** Enrolls `callsign` with an auto-approving invite: the member is active, the JWT theirs. */
  async function enrolled(callsign: string): Promise<string> {
    const code = generateCode(8);
    await insertInviteCode(db(), {
      code,
      createdAt: Date.now(),
      ownerCallsign: null,
      autoApprove: true,
    });
    const response = await t.api('public', 'POST', apiPaths.enroll, {
      json: { callsign, invite_code: code },
    });
    expect(response.status, response.text).toBe(200);
    return enrollResponseSchema.parse(response.json()).jwt;
  }

  /** Moves every certificate of `callsign` back in time, as if issued `ms` earlier. */
  async function ageKeys(callsign: string, ms: number): Promise<void> {
    await sql`update issued_certificates set issued_at = issued_at - ${ms} where callsign = ${callsign}`.execute(
      db(),
    );
  }

  const keyCalls = keyCallsFor;

  const call = (method: string, path: string, bearer: string): Promise<ApiResponse> =>
    t.api('public', method, path, { bearer });

  beforeAll(() => {
    expect(t.config.takEnroll).toBeDefined();
  });

  it('hands out keys for 24 h after the first one, then refuses with what to do instead', async () => {
    const jwt = await enrolled('Kilo1');
    expect((await call('GET', apiPaths.keyDownload('Kilo1'), jwt)).status).toBe(200);

    await ageKeys('Kilo1', DAY - MINUTE);
    for (const [method, path] of keyCalls('Kilo1')) {
      const response = await call(method, path, jwt);
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
    }

    await ageKeys('Kilo1', 2 * MINUTE);
    const before = await snapshotTables(db());
    for (const [method, path] of keyCalls('Kilo1')) {
      const response = await call(method, path, jwt);
      expect(response.status, `${method} ${path}`).toBe(403);
      const { detail, reason } = errorResponseSchema.parse(response.json());
      expect(reason).toBe('enrollment_keys_ended');
      expect(detail).toContain(t.config.mtlsOrigin);
      expect(detail).toContain('renewal code');
    }
    expect(await snapshotTables(db())).toBe(before);

    // The token still does what is not a key: the poll, the sign-in check, the list of keys.
    expect((await call('GET', apiPaths.acceptance, jwt)).status).toBe(200);
    expect((await call('GET', apiPaths.checkAuthValidUser, jwt)).status).toBe(200);
    expect((await call('GET', apiPaths.myKeys, jwt)).status).toBe(200);
  });

  it('counts from the first key of any kind, not from the enrollment', async () => {
    const jwt = await enrolled('Kilo2');
    // No key yet, however long the member waited: the token hands out the first one.
    await sql`update enrollments set created_at = created_at - ${3 * DAY} where callsign = 'Kilo2'`.execute(
      db(),
    );
    const tak = await call('POST', takPaths.enrollmentToken, jwt);
    expect(tak.status, tak.text).toBe(200);
    expect((await call('GET', apiPaths.instructions, jwt)).status).toBe(200);

    await ageKeys('Kilo2', DAY);
    expect((await call('GET', apiPaths.keyDownload('Kilo2'), jwt)).status).toBe(403);
  });

  it('leaves the member’s key and a member JWT (a renewal code’s) their own rules', async () => {
    const jwt = await enrolled('Kilo3');
    const key = await t.issueKey('Kilo3');
    await ageKeys('Kilo3', 2 * DAY);
    expect((await call('GET', apiPaths.keyDownload('Kilo3'), jwt)).status).toBe(403);

    const renewed = await t.portal.tokens.issue({
      scope: 'member',
      subject: 'Kilo3',
      ttlMs: DAY,
    });
    for (const [method, path] of keyCalls('Kilo3')) {
      const byToken = await call(method, path, renewed.jwt);
      expect(byToken.status, `${method} ${path}: ${byToken.text}`).toBe(200);
      const byKey = await t.api('mtls', method, path, { key });
      expect(byKey.status, `${method} ${path}: ${byKey.text}`).toBe(200);
    }
  });
});
