import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAdminResponseSchema,
  apiPaths,
  checkAuthResponseSchema,
  checkInviteCodeResponseSchema,
  createInviteResponseSchema,
  enrollResponseSchema,
  exchangeCodeResponseSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
} from '@callsign/contract';
import { sql } from 'kysely';
import { selfSignedCertificate } from '../../src/ca/openssl-cli.testing.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import type { ScratchDatabase } from '../../src/db/test-engines.testing.js';
import { askOcspOverHttp, curlPlainHttp, revocationUrlsOf } from '../support/ca-over-http.js';
import { certificateInPfx } from '../support/pfx-files.js';
import { run } from '../support/processes.js';
import { derOfLines, opensslCsr } from '../support/tak-client.js';
import {
  HOST,
  PROXY_ADDRESS,
  PROXY_SECRET,
  TAK_HOST,
  direct,
  forwardedCertificate,
  postgresEngine,
  startDeployment,
  testNginxConfig,
  type Deployment,
} from './deployment.js';

/**
 * PORTAL_TLS_MODE=proxy with the real parts: nginx (deploy/nginx/portal.conf) in front of two
 * built instances on one PostgreSQL, a member's journey with curl and real client certificates,
 * and what nginx and the instances do with headers a client forged.
 */

const postgres = postgresEngine();

describe.skipIf(postgres === undefined)('behind nginx, two instances on PostgreSQL', () => {
  let database: ScratchDatabase;
  let deployment: Deployment;
  const keys: Record<string, { file: string; pem: string }> = {};

  const withKey = (callsign: string) => [
    '--cert-type',
    'P12',
    '--cert',
    `${keys[callsign]?.file ?? ''}:${callsign}`,
  ];
  const json = (body: unknown) => [
    '-H',
    'Content-Type: application/json',
    '--data',
    JSON.stringify(body),
  ];
  const bearer = (jwt: string) => ['-H', `Authorization: Bearer ${jwt}`];

  async function downloadKey(callsign: string, jwt: string): Promise<void> {
    const file = path.join(deployment.workDir, `${callsign}.pfx`);
    const key = await deployment.curl('public', apiPaths.keyDownload(callsign), [
      ...bearer(jwt),
      '--output',
      file,
    ]);
    expect(key.status, key.stderr).toBe(200);
    keys[callsign] = { file, pem: await certificateInPfx({ pfxFile: file, password: callsign }) };
  }

  beforeAll(async () => {
    if (postgres === undefined) return;
    database = await postgres.createScratchDatabase();
    deployment = await startDeployment(database, { PORTAL_RATE_LIMIT_FAILURES: '3' });
  });

  afterAll(async () => {
    // Undefined when beforeAll failed half-way.
    await (deployment as Deployment | undefined)?.destroy();
    await (database as ScratchDatabase | undefined)?.drop();
  });

  it('the shipped nginx configuration passes nginx -t', async () => {
    const checked = await testNginxConfig(deployment.nginx.dir, deployment.nginx.config);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain('test is successful');
  });

  it('two instances started at once on the empty database both serve, migrated once', async () => {
    for (const instance of deployment.instances) {
      expect(instance.output()).toContain(`Listening:   http://127.0.0.1:${instance.port}`);
      const health = await direct(instance, 'GET', apiPaths.healthcheck, {
        face: 'public',
        from: '127.0.0.1',
      });
      expect(health.status).toBe(200);
    }
    const handle = database.open();
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(
      handle.db,
    );
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(MIGRATIONS).sort());
    await handle.close();
  });

  it('admin and member journeys through nginx with curl and real client certificates', async () => {
    const adminCode = await deployment.cli(['admin-code']);
    expect(adminCode.code, adminCode.stderr).toBe(0);
    const code = adminCode.stdout.trim();

    const exchanged = await deployment.curl('public', apiPaths.exchangeCode, json({ code }));
    expect(exchanged.status).toBe(200);
    const firstAdmin = exchangeCodeResponseSchema.parse(JSON.parse(exchanged.body)).jwt;
    const added = await deployment.curl('public', apiPaths.addAdmin, [
      ...json({ callsign: 'Eagle1' }),
      ...bearer(firstAdmin),
    ]);
    expect(added.status).toBe(200);
    const { jwt_exchange_code } = addAdminResponseSchema.parse(JSON.parse(added.body));
    const signedIn = await deployment.curl(
      'public',
      apiPaths.exchangeCode,
      json({ code: jwt_exchange_code }),
    );
    await downloadKey('Eagle1', exchangeCodeResponseSchema.parse(JSON.parse(signedIn.body)).jwt);

    const admin = await deployment.curl('mtls', apiPaths.checkAuthAdmin, withKey('Eagle1'));
    expect(admin.status).toBe(200);
    expect(checkAuthResponseSchema.parse(JSON.parse(admin.body))).toMatchObject({
      type: 'mtls',
      userid: 'Eagle1',
    });

    const created = await deployment.curl('mtls', apiPaths.createInvite, [
      ...withKey('Eagle1'),
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
    ]);
    expect(created.status).toBe(200);
    const { invite_code } = createInviteResponseSchema.parse(JSON.parse(created.body));
    const enrolled = await deployment.curl(
      'public',
      apiPaths.enroll,
      json({ callsign: 'Ranger7', invite_code }),
    );
    expect(enrolled.status).toBe(200);
    const enrollment = enrollResponseSchema.parse(JSON.parse(enrolled.body));
    const accepted = await deployment.curl('mtls', apiPaths.accept, [
      ...withKey('Eagle1'),
      ...json({ callsign: 'Ranger7', approvecode: enrollment.approvecode }),
    ]);
    expect(accepted.status).toBe(200);
    await downloadKey('Ranger7', enrollment.jwt);

    // Round robin: four calls reach both instances; each verifies the key itself.
    for (let call = 0; call < 4; call += 1) {
      const member = await deployment.curl('mtls', apiPaths.checkAuthValidUser, withKey('Ranger7'));
      expect(member.status).toBe(200);
      expect(checkAuthResponseSchema.parse(JSON.parse(member.body))).toMatchObject({
        type: 'mtls',
        userid: 'Ranger7',
      });
    }
    const notAdmin = await deployment.curl('mtls', apiPaths.checkAuthAdmin, withKey('Ranger7'));
    expect(notAdmin.status).toBe(403);
  });

  it("TAK enrollment through nginx's 8446 block: a member's code signs a key made by openssl", async () => {
    const takCurl = async (urlPath: string, extra: string[] = []) => {
      const result = await run('curl', [
        '--silent',
        '--show-error',
        '--cacert',
        deployment.chainFile,
        '--resolve',
        `${TAK_HOST}:${deployment.nginx.enrollPort}:127.0.0.1`,
        '--write-out',
        '\n%{http_code} %{content_type}',
        ...extra,
        `https://${TAK_HOST}:${deployment.nginx.enrollPort}${urlPath}`,
      ]);
      const cut = result.stdout.lastIndexOf('\n');
      const [status = '0', type = ''] = result.stdout.slice(cut + 1).split(' ');
      return { status: Number(status), type, body: result.stdout.slice(0, cut) };
    };
    const answer = await deployment.curl('mtls', takPaths.enrollmentToken, [
      ...withKey('Ranger7'),
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
    ]);
    expect(answer.status, answer.body).toBe(200);
    const token = takEnrollmentTokenResponseSchema.parse(JSON.parse(answer.body));
    expect(token.port).toBe(8446);
    // nginx's 8446 certificate here is the test CA's, and PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED is
    // not set: phones would need the trust package.
    expect(token.trusted_by_phones).toBe(false);

    expect((await takCurl('/Marti/api/tls/config')).status).toBe(401);
    expect((await takCurl(apiPaths.healthcheck)).status).toBe(404);
    const basic = ['--user', `Ranger7:${token.token}`];
    // Stock TAK libraries log in at TAK Server's OAuth first, then call tls/* with the token.
    const grant = await takCurl(
      `/oauth/token?grant_type=password&username=Ranger7&password=${token.token}`,
      ['-X', 'POST'],
    );
    expect(grant.status, grant.body).toBe(200);
    const { access_token: accessToken } = JSON.parse(grant.body) as { access_token: string };
    const bearer = await takCurl('/Marti/api/tls/config', [
      '-H',
      `Authorization: Bearer ${accessToken}`,
    ]);
    expect(bearer.status).toBe(200);
    const config = await takCurl('/Marti/api/tls/config', basic);
    expect(config.status).toBe(200);
    expect(config.body).toContain('<nameEntry name="OU" value="members"/>');

    const device = await opensslCsr({ subject: '/O=portal/OU=members/CN=Ranger7' });
    const signed = await takCurl('/Marti/api/tls/signClient/v2?clientUid=proxy-test&version=1', [
      ...basic,
      '-H',
      'Content-Type: text/plain',
      '--data-binary',
      device.csrPem,
    ]);
    expect(signed.status, signed.body).toBe(200);
    expect(signed.type).toBe('application/json');
    const { signedCert } = JSON.parse(signed.body) as { signedCert: string };
    expect(new X509Certificate(derOfLines(signedCert)).subject).toContain('CN=Ranger7');
  });

  it('the mTLS face without a key: 403 for the API, the error page for pages, /ca/ open', async () => {
    const api = await deployment.curl('mtls', apiPaths.checkAuthValidUser);
    expect(api.status).toBe(403);
    const page = await deployment.curl('mtls', '/', ['--dump-header', '-']);
    expect(page.status).toBe(302);
    expect(page.body).toContain(
      `https://${HOST}:${deployment.nginx.port}/error?code=mtls_fail&reason=no_key`,
    );
    const chain = await deployment.curl('mtls', '/ca/ca.pem');
    expect(chain.status).toBe(200);
    expect(chain.body).toContain('-----BEGIN CERTIFICATE-----');
    const health = await deployment.curl('mtls', apiPaths.healthcheck);
    expect(health.status).toBe(200);
  });

  it('a key from another CA is refused by nginx: 403 for the API, the error page for pages', async () => {
    const dir = deployment.workDir;
    const forged = await selfSignedCertificate(dir, 'forged', { subject: '/CN=Eagle1' });
    const pfx = path.join(dir, 'forged.pfx');
    const packed = await run('openssl', [
      'pkcs12',
      '-export',
      '-in',
      forged,
      '-inkey',
      path.join(dir, 'forged.key'),
      '-out',
      pfx,
      '-passout',
      'pass:Eagle1',
    ]);
    expect(packed.code, packed.stderr).toBe(0);
    const key = ['--cert-type', 'P12', '--cert', `${pfx}:Eagle1`];
    expect((await deployment.curl('mtls', apiPaths.checkAuthAdmin, key)).status).toBe(403);
    const page = await deployment.curl('mtls', '/', [...key, '--dump-header', '-']);
    expect(page.status).toBe(302);
    expect(page.body.toLowerCase()).toContain(
      `location: https://${HOST}:${deployment.nginx.port}/error?code=mtls_fail&reason=refused`,
    );
  });

  it('headers a client forges through nginx are overwritten', async () => {
    const forged = [
      '-H',
      `X-SSL-Client-Cert: ${encodeURIComponent(keys.Eagle1?.pem ?? '')}`,
      '-H',
      'X-SSL-Client-Verify: SUCCESS',
    ];
    // The admin's own (public) certificate, claimed without the key, on either face.
    expect((await deployment.curl('mtls', apiPaths.checkAuthAdmin, forged)).status).toBe(403);
    expect((await deployment.curl('public', apiPaths.checkAuthAdmin, forged)).status).toBe(403);
  });

  it('a forged certificate header sent straight to an instance is ignored', async () => {
    const [instance] = deployment.instances;
    if (instance === undefined) throw new Error('no instance');
    const adminPem = keys.Eagle1?.pem ?? '';
    const ask = (from: string, headers: Record<string, string>) =>
      direct(instance, 'GET', apiPaths.checkAuthAdmin, { face: 'mtls', from, headers });

    // As the proxy sends it, from the proxy's address: accepted (the header path works).
    expect((await ask(PROXY_ADDRESS, forwardedCertificate(adminPem))).status).toBe(200);
    // The same headers from any other address: ignored.
    expect((await ask('127.0.0.1', forwardedCertificate(adminPem))).status).toBe(403);
    const page = await direct(instance, 'GET', '/', {
      face: 'mtls',
      from: '127.0.0.1',
      headers: forwardedCertificate(adminPem),
    });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe(`https://${HOST}/error?code=mtls_fail&reason=no_key`);
    // From the proxy's address without its verification: ignored.
    const { 'x-ssl-client-cert': certOnly } = forwardedCertificate(adminPem);
    expect((await ask(PROXY_ADDRESS, { 'x-ssl-client-cert': certOnly })).status).toBe(403);
    for (const verdict of ['NONE', 'FAILED:certificate has expired', 'success']) {
      expect((await ask(PROXY_ADDRESS, forwardedCertificate(adminPem, verdict))).status).toBe(403);
    }
    // "Verified" by the proxy but not signed by the portal's CA, though it copies the admin's
    // callsign and serial: the instance checks the chain itself.
    const serial = /Serial Number:\s*\n?\s*([0-9a-f:]+)/i.exec(
      (await run('openssl', ['x509', '-noout', '-text'], { input: adminPem })).stdout,
    )?.[1];
    expect(serial).toBeDefined();
    const copy = await selfSignedCertificate(deployment.workDir, 'copy', {
      subject: '/CN=Eagle1',
      serial: `0x${(serial ?? '').replaceAll(':', '')}`,
    });
    const copyPem = await readFile(copy, 'utf8');
    expect((await ask(PROXY_ADDRESS, forwardedCertificate(copyPem))).status).toBe(403);
  });

  it('a forged certificate header from the proxy’s address without the proxy’s secret is ignored', async () => {
    // A local process that can connect from nginx's address (PORTAL_TRUSTED_PROXIES) but cannot
    // read nginx's secret file (PORTAL_PROXY_SECRET_FILE).
    const [instance] = deployment.instances;
    if (instance === undefined) throw new Error('no instance');
    const adminPem = keys.Eagle1?.pem ?? '';
    const ask = (headers: Record<string, string>) =>
      direct(instance, 'GET', apiPaths.checkAuthAdmin, {
        face: 'mtls',
        from: PROXY_ADDRESS,
        headers,
      });

    expect((await ask(forwardedCertificate(adminPem, 'SUCCESS', null))).status).toBe(403);
    for (const guess of ['', 'guess', PROXY_SECRET.slice(1), `${PROXY_SECRET}x`]) {
      expect((await ask(forwardedCertificate(adminPem, 'SUCCESS', guess))).status).toBe(403);
    }
    const page = await direct(instance, 'GET', '/', {
      face: 'mtls',
      from: PROXY_ADDRESS,
      headers: forwardedCertificate(adminPem, 'SUCCESS', null),
    });
    expect(page.status).toBe(302);
    // With the secret, as nginx sends it: accepted.
    expect((await ask(forwardedCertificate(adminPem))).status).toBe(200);
    // A client that sends the secret header itself through nginx gets nowhere either: nginx
    // replaces it on the mTLS face, and the public face takes no certificate.
    const throughNginx = await deployment.curl('public', apiPaths.checkAuthAdmin, [
      ...Object.entries(forwardedCertificate(adminPem)).flatMap(([name, value]) => [
        '-H',
        `${name}: ${value}`,
      ]),
    ]);
    expect(throughNginx.status).toBe(403);
  });

  it('a revocation through instance A is refused through instance B and through nginx', async () => {
    const [a, b] = deployment.instances;
    if (a === undefined || b === undefined) throw new Error('two instances');
    const member = forwardedCertificate(keys.Ranger7?.pem ?? '');
    const admin = forwardedCertificate(keys.Eagle1?.pem ?? '');
    const asMember = () =>
      direct(b, 'GET', apiPaths.checkAuthValidUser, {
        face: 'mtls',
        from: PROXY_ADDRESS,
        headers: member,
      });
    expect((await asMember()).status).toBe(200);

    const revoked = await direct(a, 'DELETE', apiPaths.person('Ranger7'), {
      face: 'mtls',
      from: PROXY_ADDRESS,
      headers: admin,
    });
    expect(revoked.status).toBe(200);

    // Every other instance refuses it within a second (here: on its next request).
    const deadline = Date.now() + 1_000;
    let status = (await asMember()).status;
    while (status !== 403 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await asMember()).status;
    }
    expect(status).toBe(403);
    // B's CRL lists it too, though B did not revoke it.
    const crl = await direct(b, 'GET', '/ca/crl.pem', { face: 'public', from: PROXY_ADDRESS });
    const listed = await run('openssl', ['crl', '-noout', '-text'], { input: crl.text });
    const serial = (
      await run('openssl', ['x509', '-noout', '-serial'], {
        input: keys.Ranger7?.pem ?? '',
      })
    ).stdout
      .replace('serial=', '')
      .trim();
    expect(serial).toMatch(/^[0-9A-F]{2,}$/);
    expect(listed.stdout.toUpperCase()).toContain(`SERIAL NUMBER: ${serial}`);
    for (let call = 0; call < 2; call += 1) {
      const viaNginx = await deployment.curl(
        'mtls',
        apiPaths.checkAuthValidUser,
        withKey('Ranger7'),
      );
      expect(viaNginx.status).toBe(403);
    }
  });

  it("nginx's port-80 block answers the CA files in plain HTTP and redirects the rest", async () => {
    const member = keys.Ranger7?.pem ?? '';
    const admin = keys.Eagle1?.pem ?? '';
    // The instances write nginx's port-80 address (http://{host}, no port) into certificates.
    expect(await revocationUrlsOf(member)).toEqual({
      crl: `http://${HOST}/ca/crl.der`,
      ocsp: `http://${HOST}/ca/ocsp`,
      caIssuers: `http://${HOST}/ca/issuing-ca.der`,
    });
    // Port 80 of the test's nginx is a free port: the same path, on that port.
    const { httpPort } = deployment.nginx;
    const plain = (urlPath: string, extra: string[] = []) =>
      curlPlainHttp(`http://${HOST}:${httpPort}${urlPath}`, extra);

    const crl = await plain('/ca/crl.pem');
    expect(crl.status, crl.stderr).toBe(200);
    // No HSTS in plain HTTP (RFC 6797 §7.2): nginx says X-Forwarded-Proto http from port 80.
    const head = await plain('/ca/crl.pem', ['--head']);
    expect(head.body).toMatch(/^HTTP\/1\.1 200/);
    expect(head.body).toMatch(/^x-content-type-options: nosniff\r?$/im);
    expect(head.body).not.toMatch(/strict-transport-security/i);
    const listed = await run(
      'openssl',
      ['crl', '-noout', '-text', '-CAfile', deployment.chainFile],
      {
        input: crl.body,
      },
    );
    expect(listed.stderr).toContain('verify OK');
    const serial = (await run('openssl', ['x509', '-noout', '-serial'], { input: member })).stdout
      .replace('serial=', '')
      .trim();
    // Ranger7 was revoked by the test before.
    expect(listed.stdout.toUpperCase()).toContain(`SERIAL NUMBER: ${serial}`);

    const issuerFile = path.join(deployment.workDir, 'issuing-ca.der');
    const issuer = await plain('/ca/issuing-ca.der', ['--output', issuerFile]);
    expect(issuer.status, issuer.stderr).toBe(200);
    const issuerText = await run('openssl', [
      'x509',
      '-inform',
      'DER',
      '-in',
      issuerFile,
      '-noout',
      '-subject',
    ]);
    expect(issuerText.stdout).toContain('Callsign Portal Issuing CA');

    const issuerPem = await readFile(path.join(deployment.dataDir, 'ca', 'issuing-ca.pem'), 'utf8');
    const ocsp = (certificatePem: string) =>
      askOcspOverHttp({
        url: `http://${HOST}/ca/ocsp`,
        connectTo: `127.0.0.1:${httpPort}`,
        certificatePem,
        issuerPem,
        chainFile: deployment.chainFile,
        workDir: deployment.workDir,
      });
    const good = await ocsp(admin);
    expect(good.stderr).toContain('Response verify OK');
    expect(good.stdout).toContain(': good');
    const revoked = await ocsp(member);
    expect(revoked.stderr).toContain('Response verify OK');
    expect(revoked.stdout).toContain(': revoked');

    for (const urlPath of ['/login', '/api/v1/healthcheck', '/']) {
      const answer = await plain(urlPath);
      expect({ status: answer.status, redirect: answer.redirect }).toEqual({
        status: 301,
        redirect: `https://${HOST}${urlPath}`,
      });
    }
    const deleted = await plain('/ca/crl.pem', ['-X', 'DELETE']);
    expect({ status: deleted.status, redirect: deleted.redirect }).toEqual({
      status: 301,
      redirect: `https://${HOST}/ca/crl.pem`,
    });
  });

  it('the failure budget is one for all instances, and nginx decides the client address', async () => {
    const [a, b] = deployment.instances;
    if (a === undefined || b === undefined) throw new Error('two instances');
    const guess = (instance: typeof a, client: string) =>
      direct(instance, 'GET', `${apiPaths.checkInviteCode}?invitecode=NOSUCHCODE`, {
        face: 'public',
        from: PROXY_ADDRESS,
        headers: { 'x-forwarded-for': client },
      });
    for (const instance of [a, b, a]) {
      const answer = await guess(instance, '198.51.100.7');
      expect(checkInviteCodeResponseSchema.parse(JSON.parse(answer.text))).toEqual({
        invitecode_is_active: false,
      });
    }
    expect((await guess(b, '198.51.100.7')).status).toBe(429);
    expect((await guess(a, '198.51.100.7')).status).toBe(429);
    expect((await guess(b, '198.51.100.8')).status).toBe(200);

    // Through nginx the address is the connection's: a forged X-Forwarded-For changes nothing.
    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      const answer = await deployment.curl(
        'public',
        `${apiPaths.checkInviteCode}?invitecode=NOSUCHCODE`,
        ['-H', `X-Forwarded-For: 203.0.113.${call}`],
      );
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
