import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MEMBER_PREFIX } from '../src/cli/tak-check/test-member.js';
import { freePort, run } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

// `tak-check` (docs/tak.md) against a real TLS server standing in for TAK Server's
// streaming port: openssl s_server on loopback, requiring a client certificate, trusting the
// portal's CA and checking the portal's CRL, as TAK Server's CoreConfig.xml sets it up. Then the
// configurations that must be refused, each named by the check that fails.

const CLI = path.join(SERVER_DIST, 'cli.js');
const TAK_HOST = 'tak.example.org';

let portal: TestPortal;
let takPort: number;
let files: { cert: string; key: string; chain: string; crl: string };
/** A self-signed certificate for TAK_HOST: another CA's server certificate, or another CA. */
let other: { cert: string; key: string };
let standIn: ChildProcess | undefined;

beforeAll(async () => {
  expect(existsSync(CLI), 'build the server first (npm run build)').toBe(true);
  takPort = await freePort();
  portal = await startTestPortal({ env: { TAK_HOST, TAK_PORT: String(takPort) } });
  // TAK Server's certificate from the portal's CA, as docs/tak.md has it.
  const issued = await portal.portal.certificates.issueServerCertificate([TAK_HOST]);
  const dir = portal.workDir;
  files = {
    cert: path.join(dir, 'tak.crt.pem'),
    key: path.join(dir, 'tak.key.pem'),
    chain: portal.chainFile,
    crl: path.join(dir, 'tak-crl.pem'),
  };
  await writeFile(files.cert, [issued.certificatePem, ...issued.chainPem].join(''));
  await writeFile(files.key, issued.privateKeyPem, { mode: 0o600 });
  other = { cert: path.join(dir, 'other.pem'), key: path.join(dir, 'other.key') };
  const made = await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    other.key,
    '-out',
    other.cert,
    '-subj',
    `/CN=${TAK_HOST}`,
    '-addext',
    `subjectAltName=DNS:${TAK_HOST}`,
  ]);
  expect(made.code, made.stderr).toBe(0);
});

afterEach(async () => {
  await stopStandIn();
});

afterAll(async () => {
  await portal.destroy();
});

/** The portal's CRL as TAK Server's refresh script would fetch it now. */
async function fetchCrl(): Promise<void> {
  const response = await portal.curl('public', '/ca/crl.pem');
  expect(response.status).toBe(200);
  await writeFile(files.crl, response.body);
}

const CRL_CHECK = () => ['-crl_check', '-CRLform', 'PEM', '-CRL', files.crl];

/** openssl s_server on 127.0.0.1:takPort, requiring and verifying a client certificate. */
async function startStandIn(options: { cert?: string; key?: string; extra: string[] }) {
  // Under `timeout`, so that it ends by itself even if this test process does not get to stop it.
  standIn = spawn(
    'timeout',
    [
      '300',
      'openssl',
      's_server',
      '-accept',
      `127.0.0.1:${takPort}`,
      '-cert',
      options.cert ?? files.cert,
      '-key',
      options.key ?? files.key,
      '-Verify',
      '1',
      '-verify_return_error',
      '-quiet',
      ...options.extra,
    ],
    { stdio: 'ignore' },
  );
  // Ready once it accepts a connection (s_server shrugs off the empty one and goes on).
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const probe = await run('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${takPort}`]);
    if (probe.code === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('openssl s_server did not start');
}

async function stopStandIn(): Promise<void> {
  const child = standIn;
  standIn = undefined;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
}

async function takCheck(extra: string[] = []) {
  const result = await run(
    'node',
    [CLI, 'tak-check', '--address', '127.0.0.1', '--timeout', '5', ...extra],
    {
      env: {
        ...process.env,
        PORTAL_DATA_DIR: portal.dataDir,
        PORTAL_LOG_LEVEL: 'silent',
        TAK_HOST,
        TAK_PORT: String(takPort),
      },
    },
  );
  const lines = result.stdout.split('\n').filter((text) => /^(OK|FAIL|SKIP) /.test(text));
  const status = (name: string) => lines.find((text) => text.includes(` ${name}:`));
  return { ...result, lines, status };
}

async function testMembers() {
  return portal.portal.database.db
    .selectFrom('members')
    .select(['callsign', 'status'])
    .where('callsign', 'like', `${TEST_MEMBER_PREFIX}%`)
    .orderBy('callsign')
    .execute();
}

describe('tak-check against a stand-in for TAK Server', () => {
  it('first run: all green but the revoked check, which needs a certificate revoked before the CRL was loaded', async () => {
    await fetchCrl();
    await startStandIn({ extra: ['-CAfile', files.chain, ...CRL_CHECK()] });
    const result = await takCheck();
    // openssl s_server reads its CRL once, as TAK Server without enableOCSP: the key tak-check
    // revokes during the run gets in, which is the second failure.
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stdout).toContain(`tak-check ${TAK_HOST}:${takPort}`);
    expect(result.lines).toHaveLength(8);
    expect(result.status('revoked key refused at once')).toMatch(/^FAIL .*enableOCSP/);
    expect(result.status('connect')).toMatch(/^OK {3}connect: TLSv1\.[23] to tak\.example\.org/);
    expect(result.status('server certificate')).toMatch(
      /^OK {3}server certificate: CN=tak\.example\.org, issued by .*CN=Callsign Portal Issuing CA, SAN DNS:tak\.example\.org, valid until \d{4}-\d\d-\d\d/,
    );
    expect(result.status('server name')).toMatch(/^OK /);
    expect(result.status('chain')).toMatch(/^OK {3}chain: chains to the truststore/);
    expect(result.status('member certificate accepted')).toMatch(/^OK /);
    expect(result.status('revoked certificate refused')).toMatch(/^FAIL .*not checked yet/);
    expect(result.status('existing CA client accepted')).toMatch(/^SKIP .*--existing-client/);
    expect(result.stdout).toContain('tak-check: 2 of 8 checks failed');

    // The throw-away member: clearly named, revoked with its certificate, every step audited,
    // its revoked key kept (owner only) for the next run.
    const [member] = await testMembers();
    expect(member?.status).toBe('revoked');
    const certificates = await portal.portal.database.db
      .selectFrom('issued_certificates')
      .select(['serial', 'revoked_at'])
      .where('callsign', '=', member!.callsign)
      .execute();
    expect(certificates).toHaveLength(1);
    expect(certificates[0]!.revoked_at).not.toBeNull();
    const actions = await portal.portal.database.db
      .selectFrom('audit_events')
      .select(['action', 'actor', 'outcome'])
      .where('target', '=', member!.callsign)
      .orderBy('id')
      .execute();
    expect(actions).toEqual([
      { action: 'tak-check.member', actor: 'cli', outcome: 'success' },
      { action: 'tak-check.certificate', actor: 'cli', outcome: 'success' },
      { action: 'member.revoke', actor: 'cli', outcome: 'success' },
      { action: 'tak-check', actor: 'cli', outcome: 'failure' },
    ]);
    const kept = path.join(portal.dataDir, 'tak-check', 'revoked-test-key.pem');
    expect((await stat(kept)).mode & 0o777).toBe(0o600);
  });

  it('green once the stand-in has loaded a CRL listing the earlier test certificate, but for the key revoked at once', async () => {
    await fetchCrl();
    await startStandIn({ extra: ['-CAfile', files.chain, ...CRL_CHECK()] });
    const result = await takCheck();
    // Without OCSP (openssl s_server has none for client certificates) the key revoked during
    // the run is accepted: the one failure. The JVM with enableOCSP is all green
    // (tak-streaming-jvm.test.ts).
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.lines.map((text) => text.slice(0, 4))).toEqual([
      ...Array<string>(5).fill('OK  '),
      'FAIL',
      'OK  ',
      'SKIP',
    ]);
    expect(result.status('revoked key refused at once')).toMatch(/^FAIL .*enableOCSP/);
    expect(result.status('revoked certificate refused')).toContain(
      'refused with TLS alert "certificate revoked"',
    );
    expect(result.stdout).toContain('tak-check: 1 of 8 checks failed');
    // Each run makes (and revokes) its own member; the kept revoked key stays the first one.
    expect((await testMembers()).map((member) => member.status)).toEqual(['revoked', 'revoked']);
  });

  it('names "revoked certificate accepted" when the server does not check the CRL', async () => {
    await startStandIn({ extra: ['-CAfile', files.chain] });
    const result = await takCheck();
    expect(result.code).toBe(2);
    expect(result.status('revoked key refused at once')).toMatch(/^FAIL .*enableOCSP/);
    expect(result.status('member certificate accepted')).toMatch(/^OK /);
    expect(result.status('revoked certificate refused')).toMatch(
      /^FAIL .*revoked certificate accepted/,
    );
  });

  it('names the chain failure when the server certificate is from another CA', async () => {
    await startStandIn({ ...other, extra: ['-CAfile', files.chain, ...CRL_CHECK()] });
    const result = await takCheck();
    expect(result.code).toBe(2);
    expect(result.status('revoked key refused at once')).toMatch(/^FAIL .*enableOCSP/);
    expect(result.status('chain')).toMatch(
      /^FAIL chain: does not chain to the truststore in the TAK packages \(the portal's CA chain\): DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
    expect(result.status('server certificate')).toContain(`issued by CN=${TAK_HOST}`);
  });

  it('names the server name when TAK_HOST is not in its certificate', async () => {
    await startStandIn({ extra: ['-CAfile', files.chain, ...CRL_CHECK()] });
    const result = await takCheck(['--host', 'tak2.example.org']);
    expect(result.code).toBe(2);
    expect(result.status('revoked key refused at once')).toMatch(/^FAIL .*enableOCSP/);
    expect(result.status('server name')).toMatch(
      /^FAIL server name: the certificate is not valid for tak2\.example\.org/,
    );
  });

  it("names the refusal of a valid member when the server does not trust the portal's CA", async () => {
    await startStandIn({ extra: ['-CAfile', other.cert] });
    const result = await takCheck();
    expect(result.code).toBe(1);
    expect(result.status('member certificate accepted')).toMatch(
      /^FAIL .*refused with TLS alert "unknown ca": the server does not trust the portal's CA/,
    );
    expect(result.status('revoked certificate refused')).toMatch(/^SKIP .*not meaningful/);
  });

  it('names the lock-out when the CRL the server holds is past its nextUpdate', async () => {
    const hour = 3_600_000;
    const lapsed = await portal.portal.ca.createCrl({
      revoked: [],
      crlNumber: 1n,
      thisUpdate: new Date(Date.now() - 30 * 24 * hour),
      nextUpdate: new Date(Date.now() - 16 * 24 * hour),
    });
    await writeFile(files.crl, lapsed.pem);
    await startStandIn({ extra: ['-CAfile', files.chain, ...CRL_CHECK()] });
    const result = await takCheck();
    expect(result.code).toBe(1);
    expect(result.status('member certificate accepted')).toMatch(
      /^FAIL .*refused with TLS alert "certificate expired": the server's CRL is past its nextUpdate, which refuses every client/,
    );
  });

  it('says there is no connection, and makes no test member, when nothing listens', async () => {
    const before = await testMembers();
    const result = await takCheck();
    expect(result.code).toBe(1);
    expect(result.status('connect')).toMatch(/^FAIL connect: no connection to .*ECONNREFUSED/);
    expect(result.lines.filter((text) => text.startsWith('SKIP'))).toHaveLength(7);
    expect(await testMembers()).toEqual(before);
  });

  it('refuses bad options with a usage error and changes nothing', async () => {
    const before = await testMembers();
    for (const args of [
      ['--port', '0'],
      ['--timeout', 'soon'],
      ['--address', 'tak'],
      ['extra'],
      ['--existing-client', path.join(portal.workDir, 'missing.p12:secret')],
    ]) {
      const result = await takCheck(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).not.toBe('');
    }
    expect(await testMembers()).toEqual(before);
    expect(await readdir(path.join(portal.dataDir, 'tak-check'))).toEqual(['revoked-test-key.pem']);
  });
});
