import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { APIAuthPassword, TAKAPI } from '@tak-ps/node-tak';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, takEnrollmentTokenResponseSchema, takPaths } from '@callsign/contract';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

/**
 * One-scan enrollment driven by a maintained TAK client library from the npm registry,
 * `@tak-ps/node-tak` (CloudTAK's): its `Credentials.generate()` reads `tls/config`, makes its own
 * key and CSR with the openssl binary and posts it to `signClient/v2`. Nothing of the portal's
 * code is on the client side.
 */

/**
 * The library's password login, as a TAK Server enrollment client uses it: it sends Basic on
 * `signClient/v2` only and expects to have logged in to TAK Server's OAuth for `tls/config`,
 * which the enrollment protocol does not have. So Basic goes on every request (as ATAK sends
 * it), and the connection trusts the portal's CA (the trust package's job on a phone).
 */
class EnrollmentLogin extends APIAuthPassword {
  constructor(
    username: string,
    password: string,
    private readonly dispatcher: Dispatcher,
  ) {
    super(username, password);
  }

  override fetch(
    api: TAKAPI,
    url: URL,
    opts: { headers?: Record<string, string>; dispatcher?: Dispatcher },
  ): Promise<unknown> {
    const basic = Buffer.from(`${this.username}:${this.password}`).toString('base64');
    opts.headers = { Authorization: `Basic ${basic}`, ...opts.headers };
    opts.dispatcher = this.dispatcher;
    return super.fetch(api, url, opts) as Promise<unknown>;
  }
}

describe('TAK enrollment with @tak-ps/node-tak', () => {
  let portal: TestPortal;
  let agent: Agent;

  beforeAll(async () => {
    portal = await startTestPortal();
    agent = new Agent({
      connect: { ca: portal.portal.ca.chainPem, servername: portal.config.takHost },
    });
  }, 60_000);

  afterAll(async () => {
    await agent.close();
    await portal.destroy();
  });

  it('enrolls with the member’s token, and the certificate and key open the mTLS face', async () => {
    const member = await portal.addMember('NodeTak1');
    const answer = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key: member });
    const token = takEnrollmentTokenResponseSchema.parse(answer.json());
    const api = new TAKAPI(
      new URL(`https://127.0.0.1:${String(token.port)}`),
      new EnrollmentLogin(token.username, token.token, agent),
    );

    const { cert, key, ca } = await api.Credentials.generate();

    const leaf = new X509Certificate(cert);
    expect(leaf.subject).toContain('CN=NodeTak1');
    expect(
      ca.map(
        (der) =>
          new X509Certificate(`-----BEGIN CERTIFICATE-----\n${der}\n-----END CERTIFICATE-----`)
            .subject,
      ),
    ).toEqual([
      new X509Certificate(portal.portal.ca.issuingCertificatePem).subject,
      new X509Certificate(portal.portal.ca.rootCertificatePem).subject,
    ]);
    expect(leaf.checkIssued(new X509Certificate(portal.portal.ca.issuingCertificatePem))).toBe(
      true,
    );
    const status = await new Promise<number>((resolve, reject) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port: portal.port,
          servername: portal.config.mtlsHost,
          path: apiPaths.checkAuthValidUser,
          headers: { host: `${portal.config.mtlsHost}:${String(portal.port)}` },
          ca: portal.portal.ca.chainPem,
          cert,
          key,
          agent: false,
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            resolve(response.statusCode ?? 0);
          });
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(200);

    // The token is spent: the library's second try is refused.
    await expect(api.Credentials.generate()).rejects.toMatchObject({ status: 401 });
  }, 60_000);
});
