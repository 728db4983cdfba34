import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiPaths, takEnrollmentTokenResponseSchema, takPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import {
  buildTakEnrollApp,
  TAK_ENROLL_PATHS,
} from '../../src/modules/tak/tak-enrollment-face-routes.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { opensslCsr } from '../support/tak-client.js';

// TAK Server's OAuth token endpoint on the TAK enrollment face (docs/tak.md):
// the password grant with the callsign and the enrollment token answers an access token as TAK
// Server does, which then logs in as Bearer on `/Marti/api/tls/*` for that one enrollment only.
// The stock library itself enrolls in test/tak-enrollment-node-tak.test.ts.

describe.each(testEngines())('the TAK enrollment face’s /oauth/token on $name', (engine) => {
  let portal: InjectPortal;
  let face: FastifyInstance;
  let member: MemberKey;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    return portal;
  });
  beforeAll(async () => {
    face = await buildTakEnrollApp(portal.portal, { logger: false });
    await face.ready();
    member = await portal.addMember('Oscar1');
  });
  afterAll(async () => {
    await face.close();
  });
  beforeEach(async () => {
    await portal.portal.database.db.deleteFrom('failure_windows').execute();
  });

  const db = () => portal.portal.database.db;
  /** Every table, the TAK enrollment tokens included: a refusal or a grant changes none. */
  const snapshot = async () => [
    await snapshotTables(db()),
    await db().selectFrom('tak_enrollment_tokens').selectAll().orderBy('callsign').execute(),
  ];
  const failures = async () =>
    (await db().selectFrom('failure_windows').select('failures').executeTakeFirst())?.failures ?? 0;

  async function enrollmentToken() {
    const answer = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key: member });
    expect(answer.status, answer.text).toBe(200);
    return takEnrollmentTokenResponseSchema.parse(answer.json());
  }

  /** node-tak's request: the grant in the query, no body. */
  const grant = (params: Record<string, string>) =>
    face.inject({
      method: 'POST',
      url: `${TAK_ENROLL_PATHS.oauthToken}?${new URLSearchParams(params).toString()}`,
    });
  const accessTokenOf = (response: { statusCode: number; body: string }) => {
    expect(response.statusCode, response.body).toBe(200);
    return (JSON.parse(response.body) as { access_token: string }).access_token;
  };
  const withBearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
  const config = (headers: Record<string, string>) =>
    face.inject({ method: 'GET', url: TAK_ENROLL_PATHS.config, headers });
  async function signClient(headers: Record<string, string>) {
    const device = await opensslCsr({ subject: '/CN=Oscar1', key: 'ec' });
    return face.inject({
      method: 'POST',
      url: `${TAK_ENROLL_PATHS.signClientV2}?clientUid=oauth-device&version=3`,
      headers: { ...headers, accept: 'application/json', 'content-type': 'text/plain' },
      payload: device.csrPem,
    });
  }

  it('answers a password grant as TAK Server: a Bearer access token, not stored', async () => {
    const token = await enrollmentToken();
    const before = await snapshot();
    const response = await grant({
      grant_type: 'password',
      username: 'oscar1',
      password: token.token.toLowerCase(),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['pragma']).toBe('no-cache');
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in']);
    expect(body.token_type).toBe('Bearer');
    // Good until the enrollment token's profile window ends: 15 minutes and 10 more.
    expect(body.expires_in).toBeGreaterThan(24 * 60);
    expect(body.expires_in).toBeLessThanOrEqual(25 * 60);
    const [header, payload] = String(body.access_token)
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown);
    // Exactly 27 bytes of header: node-tak reads the claims by base64-decoding the whole token.
    expect(JSON.stringify(header)).toBe('{"alg":"ES256","typ":"JWT"}');
    expect(payload).toMatchObject({ sub: 'Oscar1', aud: 'Oscar1' });
    // The grant spends nothing: no table changed, the token is still the member's.
    expect(await snapshot()).toEqual(before);
    expect(await failures()).toBe(0);

    // A form body, as RFC 6749 has it, works as well.
    const form = await face.inject({
      method: 'POST',
      url: TAK_ENROLL_PATHS.oauthToken,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'password',
        username: 'Oscar1',
        password: token.token,
      }).toString(),
    });
    expect(form.statusCode, form.body).toBe(200);
  });

  it('enrolls once with the access token; then it opens nothing, and never the API', async () => {
    const token = await enrollmentToken();
    const jwt = accessTokenOf(
      await grant({ grant_type: 'password', username: 'Oscar1', password: token.token }),
    );
    // The access token is no bearer of the portal's API.
    const api = await portal.api('public', 'GET', apiPaths.checkAuthAny, { bearer: jwt });
    expect(api.status).toBe(403);

    expect((await config(withBearer(jwt))).statusCode).toBe(200);
    const signed = await signClient(withBearer(jwt));
    expect(signed.statusCode, signed.body).toBe(200);
    expect(Object.keys(JSON.parse(signed.body) as object)).toContain('signedCert');
    expect(await failures()).toBe(0);

    // Spent: the access token and the code it was granted for are refused alike (counted), the
    // profile still comes within its window.
    expect((await config(withBearer(jwt))).statusCode).toBe(401);
    const basic = Buffer.from(`Oscar1:${token.token}`).toString('base64');
    expect((await config({ authorization: `Basic ${basic}` })).statusCode).toBe(401);
    expect(
      (await grant({ grant_type: 'password', username: 'Oscar1', password: token.token }))
        .statusCode,
    ).toBe(401);
    expect(await failures()).toBe(3);
    const profile = await face.inject({
      method: 'GET',
      url: `${TAK_ENROLL_PATHS.profile}?clientUid=oauth-device`,
      headers: withBearer(jwt),
    });
    expect(profile.statusCode).toBe(200);
  });

  it('an access token falls with its enrollment token: a new token voids it', async () => {
    const first = await enrollmentToken();
    const jwt = accessTokenOf(
      await grant({ grant_type: 'password', username: 'Oscar1', password: first.token }),
    );
    await enrollmentToken();
    const before = await snapshot();
    expect((await config(withBearer(jwt))).statusCode).toBe(401);
    expect((await signClient(withBearer(jwt))).statusCode).toBe(401);
    expect(await snapshot()).toEqual(before);
    expect(await failures()).toBe(2);
  });

  it('refuses wrong logins with 401 (a failed guess) and malformed grants with 400 (none)', async () => {
    const token = await enrollmentToken();
    const before = await snapshot();
    const wrong = await grant({ grant_type: 'password', username: 'Oscar1', password: 'WRONG' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic /);
    expect(
      (await grant({ grant_type: 'password', username: 'Other1', password: token.token }))
        .statusCode,
    ).toBe(401);
    expect((await config(withBearer('not.a.token'))).statusCode).toBe(401);
    expect(await failures()).toBe(3);

    const unsupported = await grant({ grant_type: 'client_credentials' });
    expect(unsupported.statusCode).toBe(400);
    expect(JSON.parse(unsupported.body)).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'OAuth 2.0 Parameter: grant_type',
    });
    const missing = await grant({ grant_type: 'password', username: 'Oscar1' });
    expect(missing.statusCode).toBe(400);
    expect(JSON.parse(missing.body)).toMatchObject({ error: 'invalid_request' });
    expect(await failures()).toBe(3);
    expect(await snapshot()).toEqual(before);
  });
});
