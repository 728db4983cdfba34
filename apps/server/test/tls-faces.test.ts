import https from 'node:https';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CertificateAuthority, type IssuedCertificate } from '../src/ca/authority.js';
import { buildPkcs12 } from '../src/ca/pkcs12.js';
import { recordIssuedCertificate } from '../src/modules/certificates/repository.js';
import { revokeMember } from '../src/commands/revoke-member.js';
import { TokenService } from '../src/modules/auth/token-service.js';
import { testEngines } from '../src/db/test-engines.testing.js';
import { askOcspOverHttp, curlPlainHttp, revocationUrlsOf } from './support/ca-over-http.js';
import { portalOnScratchDatabase, type DatabaseEnv } from './support/portal-on-engine.js';
import { run } from './support/processes.js';
import { startTestPortal, withKey, type TestPortal } from './support/test-portal.js';

const ANY = '/api/v1/check-auth/mtls_or_jwt';
const VALID = '/api/v1/check-auth/validuser';
const ADMIN = '/api/v1/check-auth/validuser/admin';

let portal: TestPortal;

/** What `openssl s_client` reports about the handshake with one face (CA list included). */
function handshake(serverName: string) {
  return run(
    'openssl',
    [
      's_client',
      '-connect',
      `127.0.0.1:${portal.port}`,
      '-servername',
      serverName,
      '-CAfile',
      portal.chainFile,
      '-verify_hostname',
      serverName,
    ],
    { input: 'Q\n' },
  );
}

/** A client certificate from a CA that has nothing to do with the portal. */
async function foreignKey(callsign: string): Promise<{ pfxFile: string; password: string }> {
  const dir = portal.workDir;
  const caKey = path.join(dir, 'foreign-ca.key');
  const caCert = path.join(dir, 'foreign-ca.pem');
  const key = path.join(dir, 'foreign.key');
  const csr = path.join(dir, 'foreign.csr');
  const cert = path.join(dir, 'foreign.pem');
  const pfxFile = path.join(dir, 'foreign.pfx');
  const ok = async (args: string[]) => {
    const result = await run('openssl', args);
    expect(result.code, result.stderr).toBe(0);
  };
  await ok([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    caKey,
    '-out',
    caCert,
    '-days',
    '30',
    '-subj',
    '/CN=Callsign Portal Root CA',
  ]);
  await ok([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    `/CN=${callsign}`,
  ]);
  await ok([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caCert,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '30',
  ]);
  await ok([
    'pkcs12',
    '-export',
    '-inkey',
    key,
    '-in',
    cert,
    '-out',
    pfxFile,
    '-passout',
    `pass:${callsign}`,
  ]);
  return { pfxFile, password: callsign };
}

/** A .pfx file of a certificate issued outside the usual path, for the refusal tests. */
async function pfxFor(
  issued: IssuedCertificate,
  callsign: string,
  name: string,
): Promise<string[]> {
  const pfxFile = path.join(portal.workDir, name);
  await writeFile(
    pfxFile,
    await buildPkcs12({
      privateKeyPem: issued.privateKeyPem,
      certificatePem: issued.certificatePem,
      chainPem: issued.chainPem,
      password: callsign,
      friendlyName: callsign,
      format: 'legacy',
    }),
  );
  return ['--cert-type', 'P12', '--cert', `${pfxFile}:${callsign}`];
}

describe.each(testEngines())('on $name', (engine) => {
  let databaseEnv: DatabaseEnv;

  portalOnScratchDatabase(engine, async (env) => {
    databaseEnv = env;
    portal = await startTestPortal({ env });
    return portal;
  });

  describe('one port, two faces told apart by SNI', () => {
    it('the public face never asks for a client certificate', async () => {
      const result = await handshake(portal.host);
      expect(result.stdout).toContain('No client certificate CA names sent');
      expect(result.stdout).not.toContain('Acceptable client certificate CA names');
      expect(result.stdout).toMatch(/Verify return code: 0 \(ok\)/);
    });

    it('the mTLS face always asks for one from the portal CA', async () => {
      const result = await handshake(portal.config.mtlsHost);
      expect(result.stdout).toContain('Acceptable client certificate CA names');
      expect(result.stdout).toMatch(/Acceptable client certificate CA names\n.*Callsign Portal/);
      expect(result.stdout).toMatch(/Verify return code: 0 \(ok\)/);
    });

    it('sends plain HTTP on the TLS port to the https address', async () => {
      const result = await run('curl', [
        '--silent',
        '--output',
        '/dev/null',
        '--write-out',
        '%{http_code} %{redirect_url}',
        `http://127.0.0.1:${portal.port}/login`,
      ]);
      expect(result.stdout).toBe(`308 ${portal.origin('public')}/`);
    });
  });

  describe('the mTLS face', () => {
    it('authenticates a member by the legacy .pfx the portal issued', async () => {
      const key = await portal.addMember('Ranger1');
      const any = await portal.curl('mtls', ANY, withKey(key));
      expect(any.status).toBe(200);
      expect(JSON.parse(any.body)).toMatchObject({
        type: 'mtls',
        userid: 'Ranger1',
        payload: { sub: 'Ranger1', serial: key.serial },
      });
      const valid = await portal.curl('mtls', VALID, withKey(key));
      expect(valid.status).toBe(200);
      expect(JSON.parse(valid.body)).toMatchObject({ type: 'mtls', userid: 'Ranger1' });
      const admin = await portal.curl('mtls', ADMIN, withKey(key));
      expect(admin.status).toBe(403);
      expect(JSON.parse(admin.body)).toEqual({ detail: 'Not an admin' });
    });

    it('knows an admin by role', async () => {
      const key = await portal.addMember('Eagle6', { roles: ['admin'] });
      const admin = await portal.curl('mtls', ADMIN, withKey(key));
      expect(admin.status).toBe(200);
      expect(JSON.parse(admin.body)).toMatchObject({ type: 'mtls', userid: 'Eagle6' });
    });

    it('answers 403 on the API and sends pages to the error page without a certificate', async () => {
      const api = await portal.curl('mtls', ANY);
      expect(api.status).toBe(403);
      expect(JSON.parse(api.body)).toHaveProperty('detail');
      const redirect = await run('curl', [
        '--silent',
        '--cacert',
        portal.chainFile,
        '--resolve',
        `${portal.config.mtlsHost}:${portal.port}:127.0.0.1`,
        '--output',
        '/dev/null',
        '--write-out',
        '%{http_code} %{redirect_url}',
        `${portal.origin('mtls')}/app/admin/`,
      ]);
      expect(redirect.stdout).toBe(
        `302 ${portal.origin('public')}/error?code=mtls_fail&reason=no_key`,
      );
    });

    it('answers the health check and the CA endpoints without a certificate', async () => {
      const health = await portal.curl('mtls', '/api/v1/healthcheck');
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ healthcheck: 'success' });
      const chain = await portal.curl('mtls', '/ca/ca.pem');
      expect(chain.status).toBe(200);
      expect(chain.body).toBe(portal.portal.ca.chainPem);
    });

    it('refuses a certificate from a foreign CA, even with the same names', async () => {
      const foreign = await foreignKey('Ranger1');
      const args = ['--cert-type', 'P12', '--cert', `${foreign.pfxFile}:${foreign.password}`];
      expect((await portal.curl('mtls', ANY, args)).status).toBe(403);
    });

    it('refuses an expired certificate from the portal CA', async () => {
      await portal.addMember('Oldtimer');
      const twoYearsAgo = new Date(Date.now() - 2 * 365 * 24 * 60 * 60 * 1000);
      const pastCa = await CertificateAuthority.loadOrCreate({
        dir: portal.config.caDir,
        publicBaseUrl: portal.config.publicOrigin,
        now: () => twoYearsAgo,
      });
      const issued = await pastCa.issueMemberCertificate({
        callsign: 'Oldtimer',
        validityDays: 30,
      });
      await recordIssuedCertificate(portal.portal.database.db, {
        serial: issued.serial,
        callsign: 'Oldtimer',
        purpose: 'browser',
        notBefore: issued.notBefore.getTime(),
        notAfter: issued.notAfter.getTime(),
        issuedAt: twoYearsAgo.getTime(),
      });
      const result = await portal.curl(
        'mtls',
        ANY,
        await pfxFor(issued, 'Oldtimer', 'expired.pfx'),
      );
      expect(result.status).toBe(403);
    });

    it('refuses a server certificate of the portal CA, which carries clientAuth too', async () => {
      // server-cert's certificates are for TAK Servers and proxies (clientAuth for federation),
      // recorded under their host name: never a member's key.
      const issued = await portal.portal.services.certificates.issueServerCertificate([
        'srv.portal.localhost',
      ]);
      const result = await portal.curl(
        'mtls',
        ANY,
        await pfxFor(issued, 'srv.portal.localhost', 'server.pfx'),
      );
      expect(result.status).toBe(403);
    });

    it('refuses a certificate of the portal CA that the portal has no record of', async () => {
      await portal.addMember('Ghost1');
      const issued = await portal.portal.ca.issueMemberCertificate({
        callsign: 'Ghost1',
        validityDays: 30,
      });
      const result = await portal.curl(
        'mtls',
        ANY,
        await pfxFor(issued, 'Ghost1', 'unrecorded.pfx'),
      );
      expect(result.status).toBe(403);
    });

    it('refuses a revoked certificate on the very next request of the same connection', async () => {
      const key = await portal.addMember('Falcon2');
      const agent = new https.Agent({
        keepAlive: true,
        maxSockets: 1,
        pfx: await readFile(key.pfxFile),
        passphrase: key.password,
        ca: portal.portal.ca.chainPem,
        servername: portal.config.mtlsHost,
      });
      const get = () =>
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const request = https.get(
            {
              host: '127.0.0.1',
              port: portal.port,
              path: ANY,
              agent,
              headers: { host: `${portal.config.mtlsHost}:${portal.port}` },
            },
            (response) => {
              response.resume();
              response.on('end', () => {
                resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket });
              });
            },
          );
          request.on('error', reject);
        });
      try {
        expect(await get()).toEqual({ status: 200, reused: false });
        const revoked = await revokeMember(portal.portal.database.db, portal.portal.certificates, {
          callsign: 'Falcon2',
          actor: 'test',
          clientAddress: null,
        });
        expect(revoked?.serials).toEqual([key.serial]);
        expect(await get()).toEqual({ status: 403, reused: true });
      } finally {
        agent.destroy();
      }
      // And on a fresh connection too.
      expect((await portal.curl('mtls', ANY, withKey(key))).status).toBe(403);
    });
  });

  describe('the CRL and the chain', () => {
    it('lists a revoked serial in a CRL signed by the issuing CA, in PEM and DER', async () => {
      const key = await portal.addMember('Crow3');
      await revokeMember(portal.portal.database.db, portal.portal.certificates, {
        callsign: 'Crow3',
        actor: 'test',
        clientAddress: null,
      });
      const pem = await portal.curl('public', '/ca/crl.pem');
      expect(pem.status).toBe(200);
      expect(pem.body).toMatch(/^-----BEGIN X509 CRL-----/);
      const crlFile = path.join(portal.workDir, 'crl.pem');
      await writeFile(crlFile, pem.body);
      const text = await run('openssl', [
        'crl',
        '-in',
        crlFile,
        '-noout',
        '-text',
        '-CAfile',
        portal.chainFile,
      ]);
      expect(text.stderr).toContain('verify OK');
      expect(text.stdout.toUpperCase()).toContain(`SERIAL NUMBER: ${key.serial.toUpperCase()}`);

      const derFile = path.join(portal.workDir, 'crl.der');
      await run('curl', [
        '--silent',
        '--cacert',
        portal.chainFile,
        '--resolve',
        `${portal.host}:${portal.port}:127.0.0.1`,
        '--output',
        derFile,
        `${portal.origin('public')}/ca/crl.der`,
      ]);
      const der = await run('openssl', [
        'crl',
        '-inform',
        'DER',
        '-in',
        derFile,
        '-noout',
        '-text',
      ]);
      expect(der.code, der.stderr).toBe(0);
      expect(der.stdout.toUpperCase()).toContain(key.serial.toUpperCase());
    });
  });

  describe('the OCSP responder', () => {
    it('answers good, then revoked, signed by the delegated OCSP signer', async () => {
      const key = await portal.addMember('Lynx8');
      const leafFile = path.join(portal.workDir, 'lynx8.pem');
      const issuingFile = path.join(portal.workDir, 'issuing.pem');
      await writeFile(leafFile, key.certificatePem);
      await writeFile(issuingFile, portal.portal.ca.issuingCertificatePem);
      const ask = async () => {
        const requestFile = path.join(portal.workDir, 'ocsp-request.der');
        const responseFile = path.join(portal.workDir, 'ocsp-response.der');
        await run('openssl', [
          'ocsp',
          '-issuer',
          issuingFile,
          '-cert',
          leafFile,
          '-reqout',
          requestFile,
        ]);
        const posted = await portal.curl('public', '/ca/ocsp', [
          '--header',
          'Content-Type: application/ocsp-request',
          '--data-binary',
          `@${requestFile}`,
          '--output',
          responseFile,
        ]);
        expect(posted.status).toBe(200);
        return run('openssl', [
          'ocsp',
          '-respin',
          responseFile,
          '-reqin',
          requestFile,
          '-CAfile',
          portal.chainFile,
          '-resp_text',
        ]);
      };
      const good = await ask();
      expect(good.stderr).toContain('Response verify OK');
      expect(good.stdout).toContain('Cert Status: good');
      expect(good.stdout.toUpperCase()).toContain(`SERIAL NUMBER: ${key.serial.toUpperCase()}`);
      await revokeMember(portal.portal.database.db, portal.portal.certificates, {
        callsign: 'Lynx8',
        actor: 'test',
        clientAddress: null,
      });
      const revoked = await ask();
      expect(revoked.stderr).toContain('Response verify OK');
      expect(revoked.stdout).toContain('Cert Status: revoked');
      // A member revoked has left the unit (docs/api.md, "The OCSP responder").
      expect(revoked.stdout).toContain('Revocation Reason: affiliationChanged (0x3)');
    });
  });

  describe('the CA files in plain HTTP on the TLS port (docs/api.md)', () => {
    it("writes plain-http URLs on the portal's own port into member certificates", async () => {
      const key = await portal.addMember('Heron5');
      const base = `http://${portal.host}:${portal.port}/ca`;
      expect(await revocationUrlsOf(key.certificatePem)).toEqual({
        crl: `${base}/crl.der`,
        ocsp: `${base}/ocsp`,
        caIssuers: `${base}/issuing-ca.der`,
      });
    });

    it('answers curl http://{host}:{port}/ca/crl.pem, and the URLs in a certificate', async () => {
      const key = await portal.addMember('Heron6');
      await revokeMember(portal.portal.database.db, portal.portal.certificates, {
        callsign: 'Heron6',
        actor: 'test',
        clientAddress: null,
      });
      const pem = await curlPlainHttp(`http://${portal.host}:${portal.port}/ca/crl.pem`);
      expect(pem.status, pem.stderr).toBe(200);
      expect(pem.body).toMatch(/^-----BEGIN X509 CRL-----/);
      const listed = await run('openssl', ['crl', '-noout', '-text', '-CAfile', portal.chainFile], {
        input: pem.body,
      });
      expect(listed.stderr).toContain('verify OK');
      expect(listed.stdout.toUpperCase()).toContain(`SERIAL NUMBER: ${key.serial.toUpperCase()}`);

      const urls = await revocationUrlsOf(key.certificatePem);
      const crlFile = path.join(portal.workDir, 'heron6.crl.der');
      const der = await curlPlainHttp(urls.crl ?? '', ['--output', crlFile]);
      expect(der.status, der.stderr).toBe(200);
      const parsed = await run('openssl', [
        'crl',
        '-inform',
        'DER',
        '-in',
        crlFile,
        '-noout',
        '-text',
        '-CAfile',
        portal.chainFile,
      ]);
      expect(parsed.stderr).toContain('verify OK');
      expect(parsed.stdout.toUpperCase()).toContain(key.serial.toUpperCase());

      const issuerFile = path.join(portal.workDir, 'issuing-ca.der');
      const issuer = await curlPlainHttp(urls.caIssuers ?? '', ['--output', issuerFile]);
      expect(issuer.status, issuer.stderr).toBe(200);
      const fingerprint = (args: string[], input?: string) =>
        run('openssl', ['x509', ...args, '-noout', '-fingerprint', '-sha256'], { input });
      expect((await fingerprint(['-inform', 'DER', '-in', issuerFile])).stdout).toBe(
        (await fingerprint([], portal.portal.ca.issuingCertificatePem)).stdout,
      );
    });

    it('gives openssl ocsp -url http://… (the URL in the certificate) a signed answer', async () => {
      const key = await portal.addMember('Heron7');
      const { ocsp } = await revocationUrlsOf(key.certificatePem);
      expect(ocsp).toBe(`http://${portal.host}:${portal.port}/ca/ocsp`);
      // The answer itself (good, revoked) is the responder's, tested over HTTPS above.
      const answer = await askOcspOverHttp({
        url: ocsp ?? '',
        connectTo: `127.0.0.1:${portal.port}`,
        certificatePem: key.certificatePem,
        issuerPem: portal.portal.ca.issuingCertificatePem,
        chainFile: portal.chainFile,
        workDir: portal.workDir,
      });
      expect(answer.stderr).toContain('Response verify OK');
      expect(answer.stdout).toContain(': good');
    });

    it('gives openssl ocsp -url a serial this CA never issued an unsigned unauthorized', async () => {
      const key = await portal.addMember('Heron8');
      const { ocsp } = await revocationUrlsOf(key.certificatePem);
      const issuerFile = path.join(portal.workDir, 'never-issued-issuer.pem');
      await writeFile(issuerFile, portal.portal.ca.issuingCertificatePem);
      const before = portal.portal.ca.ocspSignatures;
      for (const serial of ['0x7e57c0ffee', '0x0badf00d0badf00d']) {
        const answer = await run('openssl', [
          'ocsp',
          '-issuer',
          issuerFile,
          '-serial',
          serial,
          '-url',
          `http://127.0.0.1:${portal.port}${new URL(ocsp ?? '').pathname}`,
          '-CAfile',
          portal.chainFile,
        ]);
        expect(answer.stdout + answer.stderr).toContain('Responder Error: unauthorized (6)');
      }
      expect(portal.portal.ca.ocspSignatures).toBe(before);
    });

    it('sends HSTS over HTTPS only, never with a CA file in plain HTTP (RFC 6797 §7.2)', async () => {
      const hsts = /^strict-transport-security: max-age=31536000\r?$/im;
      const plain = await curlPlainHttp(`http://${portal.host}:${portal.port}/ca/crl.pem`, [
        '--include',
      ]);
      expect(plain.status, plain.stderr).toBe(200);
      expect(plain.body).toMatch(/^x-content-type-options: nosniff\r?$/im);
      expect(plain.body).not.toMatch(/strict-transport-security/i);
      const secure = await portal.curl('public', '/ca/crl.pem', ['--include']);
      expect(secure.status).toBe(200);
      expect(secure.body).toMatch(hsts);
    });

    it('still sends every other plain-HTTP request to HTTPS', async () => {
      for (const urlPath of ['/', '/api/v1/healthcheck', '/app/admin/', '/ca']) {
        const answer = await curlPlainHttp(`http://${portal.host}:${portal.port}${urlPath}`);
        expect({ urlPath, status: answer.status, redirect: answer.redirect }).toEqual({
          urlPath,
          status: 308,
          redirect: `${portal.origin('public')}/`,
        });
      }
      const deleted = await curlPlainHttp(`http://${portal.host}:${portal.port}/ca/crl.pem`, [
        '-X',
        'DELETE',
      ]);
      expect(deleted.status).toBe(308);
    });
  });

  describe('bearer JWTs on the public face', () => {
    it('identifies the caller by a token the portal signed', async () => {
      await portal.addMember('Hawk4');
      const { jwt } = await portal.portal.tokens.issue({
        scope: 'member',
        subject: 'Hawk4',
        ttlMs: 60_000,
      });
      const bearer = ['--header', `Authorization: Bearer ${jwt}`];
      const any = await portal.curl('public', ANY, bearer);
      expect(any.status).toBe(200);
      expect(JSON.parse(any.body)).toMatchObject({
        type: 'jwt',
        userid: 'Hawk4',
        payload: { scope: 'member', sub: 'Hawk4' },
      });
      expect((await portal.curl('public', VALID, bearer)).status).toBe(200);
      expect((await portal.curl('public', ADMIN, bearer)).status).toBe(403);
    });

    it('answers 403 with no identity, a forged token or an expired one', async () => {
      expect((await portal.curl('public', ANY)).status).toBe(403);
      const { jwt } = await portal.portal.tokens.issue({
        scope: 'member',
        subject: 'Hawk4',
        ttlMs: 60_000,
      });
      const forged = `${jwt.slice(0, -4)}AAAA`;
      expect(
        (await portal.curl('public', ANY, ['--header', `Authorization: Bearer ${forged}`])).status,
      ).toBe(403);
      const past = await TokenService.open(
        portal.config.caDir,
        () => new Date(Date.now() - 3_600_000),
      );
      const expired = await past.issue({ scope: 'member', subject: 'Hawk4', ttlMs: 60_000 });
      expect(
        (await portal.curl('public', ANY, ['--header', `Authorization: Bearer ${expired.jwt}`]))
          .status,
      ).toBe(403);
    });

    it('knows a first-admin session (no callsign) but does not take it for a valid user', async () => {
      const { jwt } = await portal.portal.tokens.issue({ scope: 'first-admin', ttlMs: 60_000 });
      const bearer = ['--header', `Authorization: Bearer ${jwt}`];
      const any = await portal.curl('public', ANY, bearer);
      expect(JSON.parse(any.body)).toMatchObject({ type: 'jwt', userid: null });
      expect((await portal.curl('public', VALID, bearer)).status).toBe(403);
    });

    it('does not take a token for a pending enrollee as a valid user', async () => {
      const jwt = await portal.addPendingEnrollee('Newbie', 'NEWBCODE');
      const bearer = ['--header', `Authorization: Bearer ${jwt}`];
      expect((await portal.curl('public', ANY, bearer)).status).toBe(200);
      expect((await portal.curl('public', VALID, bearer)).status).toBe(403);
    });
  });

  describe('a restart on the same data directory', () => {
    it('keeps the CA, the keys and the data: an earlier certificate still authenticates', async () => {
      const first = await startTestPortal({ env: databaseEnv });
      const key = await first.addMember('Wolf5');
      const chainBefore = first.portal.ca.chainPem;
      const { jwt } = await first.portal.tokens.issue({
        scope: 'member',
        subject: 'Wolf5',
        ttlMs: 60_000,
      });
      await first.stop();
      const second = await startTestPortal({ dataDir: first.dataDir, env: databaseEnv });
      try {
        expect(second.portal.ca.chainPem).toBe(chainBefore);
        const moved = { ...key };
        const result = await second.curl('mtls', VALID, withKey(moved));
        expect(result.status).toBe(200);
        expect(JSON.parse(result.body)).toMatchObject({ userid: 'Wolf5' });
        const token = await second.curl('public', VALID, [
          '--header',
          `Authorization: Bearer ${jwt}`,
        ]);
        expect(token.status).toBe(200);
      } finally {
        await second.destroy();
        await first.destroy();
      }
    });
  });
});
