import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takEnrollmentTokenResponseSchema, takPaths } from '@callsign/contract';
import { validUserStatus } from './support/mtls-status.js';
import { enrollWithNodeTak } from './support/node-tak-client.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

/**
 * One-scan enrollment driven by a maintained TAK client library from the npm registry,
 * `@tak-ps/node-tak` 12.0.0 (CloudTAK's), unmodified and in its stock flow: TAK Server's OAuth
 * first (`POST /oauth/token`), then `Credentials.generate()` reads `tls/config` with the access
 * token, makes its own key and CSR with the openssl binary and posts it to `signClient/v2`.
 * Nothing of the portal's code is on the client side (support/node-tak-client.ts).
 */

describe('TAK enrollment with @tak-ps/node-tak', () => {
  let portal: TestPortal;

  beforeAll(async () => {
    // The face under a name this machine resolves, so the library reaches it by its name.
    portal = await startTestPortal({ env: { TAK_HOST: 'localhost' } });
  }, 60_000);

  afterAll(async () => {
    await portal.destroy();
  });

  it('enrolls with the member’s token, and the certificate and key open the mTLS face', async () => {
    const member = await portal.addMember('NodeTak1');
    const answer = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key: member });
    const token = takEnrollmentTokenResponseSchema.parse(answer.json());
    const enroll = () =>
      enrollWithNodeTak({
        url: `https://${portal.config.takHost}:${String(token.port)}`,
        caFile: portal.chainFile,
        username: token.username,
        token: token.token,
      });
    const outcome = await enroll();
    if ('error' in outcome) throw new Error(`node-tak refused: ${outcome.error.message}`);
    const { cert, key, ca } = outcome.credentials;

    const leaf = new X509Certificate(cert);
    expect(leaf.subject).toContain('CN=NodeTak1');
    const pem = (base64: string) =>
      `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----`;
    expect(ca.map((base64) => new X509Certificate(pem(base64)).subject)).toEqual([
      new X509Certificate(portal.portal.ca.issuingCertificatePem).subject,
      new X509Certificate(portal.portal.ca.rootCertificatePem).subject,
    ]);
    expect(leaf.checkIssued(new X509Certificate(portal.portal.ca.issuingCertificatePem))).toBe(
      true,
    );
    const status = await validUserStatus(
      { port: portal.port, mtlsHost: portal.config.mtlsHost, ca: portal.portal.ca.chainPem },
      cert,
      key,
    );
    expect(status).toBe(200);

    // The token is spent: the library's second try is refused at its login, as TAK Server
    // refuses a wrong password (401, which node-tak reports as a wrong user name or password).
    const again = await enroll();
    expect(again).toMatchObject({
      error: { safe: 'TAK Server reports incorrect Username or Password' },
    });
  }, 60_000);
});
