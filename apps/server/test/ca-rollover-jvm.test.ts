import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, caPaths, crlDerPathOf, takPaths } from '@callsign/contract';
import { certificatesIn } from '../src/ca/authority.js';
import { probeTls, type ClientIdentity } from '../src/cli/tak-check/tls-probe.js';
import { testEngines } from '../src/db/test-engines.testing.js';
import { ISSUERS_MAX_AGE_MS } from '../src/modules/certificates/service.js';
import { portalOnScratchDatabase, type DatabaseEnv } from './support/portal-on-engine.js';
import { freePort, run } from './support/processes.js';
import { REPO_ROOT, SERVER_DIST } from './support/repo.js';
import { startStreamingInput, type StreamingInput } from './support/tak-streaming-input.js';
import { snapshotTables } from './support/table-snapshot.js';
import { startTestPortal, type MemberKey, type TestPortal } from './support/test-portal.js';

// The rehearsal of docs/operations.md, "Rolling the issuing CA over": a unit of members moves
// from issuing CA 1 to issuing CA 2 with every member connected at every step, to TAK Server's
// streaming input (TakStreamingInput.java: PKIX trust anchors from its truststore, the JVM's own
// OCSP client asking the portal on every handshake, <crl> files read at start) and to the
// portal's own mTLS face, on every engine; on PostgreSQL with two instances sharing the
// database, the CLI run against the first and the members served by either. The TAK Server's
// truststore is /ca/ca.pem as served at each step (the procedure's "put /ca/ca.pem into the
// truststore and restart"): the JVM checks the revocation of every CA below its trust anchors,
// and the portal publishes no root CRL, so each issuing CA is an anchor. The steps' times are
// written to test-results/ca-rollover/ (docs/operations.md quotes them).

const CLI = path.join(SERVER_DIST, 'cli.js');
const TAK_HOST = 'tak.example.org';
const STORE_PASSWORD = 'atakatak';

let a: TestPortal;
/** The second instance on PostgreSQL; the same one on SQLite. */
let b: TestPortal;
let databaseEnv: DatabaseEnv;
let dir: string;
let takPort: number;
let hostsFile: string;
let input: StreamingInput | undefined;
const files = { keystore: '', truststore: '' };
const timings: Record<string, number> = {};

async function sh(command: string, args: string[]) {
  const result = await run(command, args, { cwd: dir, timeout: 120_000 });
  expect(result.code, `${command} ${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0);
  return result;
}

/** The built CLI against the first instance's data directory and database. */
async function cli(args: string[]) {
  const started = Date.now();
  const result = await run('node', [CLI, ...args], {
    timeout: 120_000,
    env: {
      ...process.env,
      ...databaseEnv,
      PORTAL_DATA_DIR: a.dataDir,
      PORTAL_LOG_LEVEL: 'silent',
    },
  });
  return { ...result, ms: Date.now() - started };
}

/** TAK Server's key store: a server certificate issued by the portal now (`server-cert`). */
async function takServerKeystore(name: string): Promise<string> {
  const issued = await a.portal.certificates.issueServerCertificate([TAK_HOST]);
  await writeFile(
    path.join(dir, `${name}.pem`),
    [issued.certificatePem, ...issued.chainPem].join(''),
  );
  await writeFile(path.join(dir, `${name}.key`), issued.privateKeyPem, { mode: 0o600 });
  const keystore = path.join(dir, `${name}.p12`);
  await sh('openssl', [
    'pkcs12',
    '-export',
    '-in',
    `${name}.pem`,
    '-inkey',
    `${name}.key`,
    '-name',
    'takserver',
    '-out',
    keystore,
    '-passout',
    `pass:${STORE_PASSWORD}`,
  ]);
  return keystore;
}

/** A PKCS#12 truststore of the certificates in `pem`, as keytool imports them one by one. */
async function truststoreOf(name: string, pem: string): Promise<string> {
  const truststore = path.join(dir, `${name}.p12`);
  for (const [i, certificate] of certificatesIn(pem).entries()) {
    const file = path.join(dir, `${name}-${i}.pem`);
    await writeFile(file, certificate.toString('pem'));
    await sh('keytool', [
      '-importcert',
      '-noprompt',
      '-storetype',
      'PKCS12',
      '-keystore',
      truststore,
      '-storepass',
      STORE_PASSWORD,
      '-alias',
      `ca-${i}`,
      '-file',
      file,
    ]);
  }
  return truststore;
}

/** (Re)starts the streaming input: OCSP on, or off with the CRL files the portal serves now. */
async function restartInput(options: { ocsp: boolean; crlPaths?: string[] }): Promise<void> {
  await input?.stop();
  const crlFiles: string[] = [];
  for (const [i, crlPath] of (options.crlPaths ?? []).entries()) {
    const file = path.join(dir, `crl-${i}.der`);
    const fetched = await a.curl('public', crlPath, ['--output', file]);
    expect(fetched.status, crlPath).toBe(200);
    crlFiles.push(file);
  }
  input = await startStreamingInput({
    port: takPort,
    keystore: files.keystore,
    truststore: files.truststore,
    password: STORE_PASSWORD,
    enableOcsp: options.ocsp,
    crlFiles,
    hostsFile,
  });
}

async function setUp(env: DatabaseEnv): Promise<{ destroy(): Promise<void> }> {
  databaseEnv = env;
  const java = await run('sh', ['-c', 'command -v java && command -v keytool']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  takPort = await freePort();
  const portalEnv = { ...env, TAK_HOST, TAK_PORT: String(takPort) };
  a = await startTestPortal({ env: portalEnv });
  b = env.DATABASE_URL === '' ? a : await startTestPortal({ env: portalEnv });
  dir = a.workDir;
  hostsFile = path.join(dir, 'hosts');
  await writeFile(hostsFile, `127.0.0.1 ${a.host}\n`);
  files.keystore = await takServerKeystore('takserver-1');
  // The TAK Server's truststore as it was before: the portal's issuing CA and root.
  files.truststore = await truststoreOf('truststore-before', a.portal.ca.chainPem);
  await restartInput({ ocsp: true });
  return {
    destroy: async () => {
      await input?.stop();
      await mkdir(path.join(REPO_ROOT, 'test-results', 'ca-rollover'), { recursive: true });
      await writeFile(
        path.join(
          REPO_ROOT,
          'test-results',
          'ca-rollover',
          `timings-${env.DATABASE_URL === '' ? 'sqlite' : 'postgres'}.json`,
        ),
        `${JSON.stringify(timings, null, 2)}\n`,
      );
      if (b !== a) await b.destroy();
      await a.destroy();
    },
  };
}

const identityOf = async (key: MemberKey): Promise<ClientIdentity> => ({
  pfx: await readFile(key.pfxFile),
  passphrase: key.password,
});

/** One TLS 1.2 handshake with the streaming input, trusting what /ca/ca.pem serves now. */
async function takHandshake(key: MemberKey): Promise<string> {
  const served = await a.curl('public', caPaths.chain);
  const result = await probeTls({
    host: TAK_HOST,
    address: '127.0.0.1',
    port: takPort,
    trusted: [served.body],
    client: await identityOf(key),
    maxVersion: 'TLSv1.2',
    timeoutMs: 20_000,
  });
  return result.kind === 'connected' ? 'accepted' : `refused: ${result.reason}`;
}

/** Every key connects to the TAK Server and to both instances' mTLS face. */
async function expectConnected(keys: MemberKey[]): Promise<void> {
  for (const key of keys) {
    expect(await takHandshake(key), `${key.callsign} ${key.serial} to TAK Server`).toBe('accepted');
    for (const portal of new Set([a, b])) {
      const response = await portal.api('mtls', 'GET', apiPaths.myKeys, { key });
      expect(response.status, `${key.callsign} ${key.serial} to the portal`).toBe(200);
    }
  }
}

async function expectRefused(key: MemberKey): Promise<void> {
  expect(await takHandshake(key)).toMatch(/^refused: /);
}

/**
 * The CNs /ca/ca.pem serves once it holds `count` certificates: an instance re-reads the CA
 * state at most ISSUERS_MAX_AGE_MS after its last look (the CLI changed it in another process).
 */
async function servedOnceItHolds(portal: TestPortal, count: number): Promise<string[]> {
  const deadline = Date.now() + ISSUERS_MAX_AGE_MS + 2_000;
  for (;;) {
    const served = certificatesIn((await portal.curl('public', caPaths.chain)).body);
    if (served.length === count || Date.now() > deadline) {
      return served.map((c) => /CN=([^,]+)$/.exec(c.subject)?.[1] ?? c.subject);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function issuerCn(key: MemberKey): string {
  return /CN=([^\n]+)/.exec(new X509Certificate(key.certificatePem).issuer)?.[1] ?? '';
}

/** The certificates of a package's truststore (.p12), as PEM. */
async function packageTruststore(zip: Uint8Array, name: string): Promise<string> {
  const entries = unzipSync(zip);
  const p12 = Object.keys(entries).find((entry) => /^truststore-.*\.p12$/.test(entry));
  expect(p12, Object.keys(entries).join(', ')).toBeDefined();
  const file = path.join(dir, `${name}.p12`);
  await writeFile(file, entries[p12 as string] as Uint8Array);
  const pem = path.join(dir, `${name}.pem`);
  await sh('openssl', [
    'pkcs12',
    '-in',
    file,
    '-passin',
    `pass:${a.config.takTruststorePassword}`,
    '-nokeys',
    '-out',
    pem,
  ]);
  return pem;
}

async function verifiedBy(caFile: string, key: MemberKey): Promise<boolean> {
  const leaf = path.join(dir, `leaf-${key.serial}.pem`);
  await writeFile(leaf, key.certificatePem);
  const result = await run('openssl', ['verify', '-CAfile', caFile, leaf]);
  return result.code === 0;
}

describe.each(testEngines())('the rollover rehearsal on $name', (engine) => {
  portalOnScratchDatabase(engine, setUp);

  const keys: Record<string, MemberKey> = {};

  beforeAll(async () => {
    for (const callsign of ['Alder1', 'Birch2', 'Cedar3'])
      keys[callsign] = await a.addMember(callsign);
    keys.CedarPhone = await a.issueKey('Cedar3');
  });

  afterAll(async () => {
    await input?.stop();
  });

  const key = (name: string) => keys[name] as MemberKey;

  it('before: every member of issuing CA 1 is connected', async () => {
    await expectConnected([key('Alder1'), key('Birch2'), key('Cedar3'), key('CedarPhone')]);
    expect(issuerCn(key('Alder1'))).toBe('Callsign Portal Issuing CA');
  });

  it('ca rollover begin: issuing CA 2; begun twice is refused with nothing written; everyone stays connected', async () => {
    const begun = await cli(['ca', 'rollover', 'begin']);
    expect(begun.code, begun.stdout + begun.stderr).toBe(0);
    expect(begun.stdout).toMatch(
      /^Rollover begun: issuing CA 2 \(O=.*, CN=Callsign Portal Issuing CA 2/,
    );
    timings.begin = begun.ms;

    const before = await snapshotTables(a.portal.database.db);
    const again = await cli(['ca', 'rollover', 'begin']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^ca rollover: a rollover is under way already: issuing CA 2 .*; nothing written\n$/,
    );
    expect(await snapshotTables(a.portal.database.db)).toBe(before);

    // Both instances serve both issuing CAs within ISSUERS_MAX_AGE_MS.
    const started = Date.now();
    for (const portal of new Set([a, b])) {
      expect(await servedOnceItHolds(portal, 3)).toEqual([
        'Callsign Portal Issuing CA 2',
        'Callsign Portal Issuing CA',
        'Callsign Portal Root CA',
      ]);
    }
    timings.bothInstancesTrustBoth = Date.now() - started;
    await expectConnected([key('Alder1'), key('Birch2'), key('Cedar3'), key('CedarPhone')]);
    // The procedure's next step: the TAK Server's truststore becomes /ca/ca.pem, and it restarts.
    files.truststore = await truststoreOf(
      'truststore-overlap',
      (await a.curl('public', caPaths.chain)).body,
    );
    const restarted = Date.now();
    await restartInput({ ocsp: true });
    timings.takServerRestart = Date.now() - restarted;
    await expectConnected([key('Alder1'), key('Birch2'), key('Cedar3'), key('CedarPhone')]);
  });

  it('a key renewed during the overlap comes from CA 2 and connects to both', async () => {
    const started = Date.now();
    keys.AlderNew = await b.issueKey('Alder1');
    timings.renewOneKey = Date.now() - started;
    expect(issuerCn(key('AlderNew'))).toBe('Callsign Portal Issuing CA 2');
    await expectConnected([key('AlderNew'), key('Alder1')]);
    expect(await input?.logged(/^accepted CN=Alder1$/m)).toMatch(/^accepted CN=Alder1$/m);
  });

  it('a TAK package and a trust package made during the overlap trust both issuing CAs', async () => {
    const built = await b.portal.services.takPackages.build('Birch2', {
      callsign: 'Birch2',
      clientAddress: null,
    });
    const fromPackage = await packageTruststore(built.packages[0]!.zip, 'package-truststore');
    const trust = await a.api('mtls', 'GET', takPaths.trustPackage, { key: key('AlderNew') });
    expect(trust.status, trust.text).toBe(200);
    const fromTrustPackage = await packageTruststore(
      new Uint8Array(trust.body),
      'trust-truststore',
    );
    for (const caFile of [fromPackage, fromTrustPackage]) {
      expect(await verifiedBy(caFile, key('Birch2'))).toBe(true);
      expect(await verifiedBy(caFile, key('AlderNew'))).toBe(true);
    }
  });

  it("revocation works for either CA's keys: OCSP at once, the CRLs once the TAK Server reloads them", async () => {
    keys.AlderSpare = await a.issueKey('Alder1');
    for (const revoked of [key('CedarPhone'), key('AlderSpare')]) {
      const owner = revoked.callsign === 'Cedar3' ? key('Cedar3') : key('AlderNew');
      const response = await a.api('mtls', 'DELETE', apiPaths.myKey(revoked.serial), {
        key: owner,
      });
      expect(response.status, response.text).toBe(200);
    }
    // OCSP (the JVM asks on each handshake): refused at once, each under its own CA.
    await expectRefused(key('CedarPhone'));
    await expectRefused(key('AlderSpare'));
    // CRLs only: the TAK Server loads each CA's CRL (the URL its keys name) and restarts.
    await restartInput({ ocsp: false, crlPaths: [caPaths.crlDer, crlDerPathOf(2)] });
    await expectRefused(key('CedarPhone'));
    await expectRefused(key('AlderSpare'));
    await expectConnected([key('Alder1'), key('AlderNew'), key('Birch2'), key('Cedar3')]);
    await restartInput({ ocsp: true });
  });

  it('ca rollover finish refuses while live keys depend on CA 1, saying how many and who', async () => {
    const before = await snapshotTables(a.portal.database.db);
    const refused = await cli(['ca', 'rollover', 'finish']);
    expect(refused.code).toBe(1);
    // Alder1 renewed; Birch2 and Cedar3 did not (server certificates are not counted).
    expect(refused.stderr).toMatch(
      /^ca rollover: 2 unexpired, unrevoked key\(s\) still depend on the old issuing CA \(Birch2 \(browser\), Cedar3 \(browser\)\).*; nothing written\n$/,
    );
    expect(await snapshotTables(a.portal.database.db)).toBe(before);
    await expectConnected([key('Alder1'), key('AlderNew'), key('Birch2'), key('Cedar3')]);
  });

  it('everyone renews, the TAK Server its own certificate too, connected throughout', async () => {
    keys.BirchNew = await a.issueKey('Birch2');
    keys.CedarNew = await b.issueKey('Cedar3');
    files.keystore = await takServerKeystore('takserver-2');
    await restartInput({ ocsp: true });
    await expectConnected([
      key('Alder1'),
      key('Birch2'),
      key('Cedar3'),
      key('AlderNew'),
      key('BirchNew'),
      key('CedarNew'),
    ]);
  });

  it('ca rollover finish retires CA 1; nobody who renewed loses access', async () => {
    const finished = await cli(['ca', 'rollover', 'finish']);
    expect(finished.code, finished.stdout + finished.stderr).toBe(0);
    expect(finished.stdout).toMatch(
      /^Rollover finished: issuing CA 1 is retired .* 3 renewed key\(s\) of it revoked as superseded\./,
    );
    timings.finish = finished.ms;
    const renewed = [key('AlderNew'), key('BirchNew'), key('CedarNew')];
    await expectConnected(renewed);
    // The old keys were renewed: revoked as superseded (OCSP), on both instances.
    await expectRefused(key('Birch2'));
    for (const portal of new Set([a, b])) {
      const response = await portal.api('mtls', 'GET', apiPaths.myKeys, { key: key('Birch2') });
      expect(response.status).toBe(403);
    }
    // New truststores hold CA 2 and the root only; the TAK Server takes /ca/ca.pem when it likes.
    const started = Date.now();
    for (const portal of new Set([a, b])) {
      expect(await servedOnceItHolds(portal, 2)).toEqual([
        'Callsign Portal Issuing CA 2',
        'Callsign Portal Root CA',
      ]);
    }
    timings.bothInstancesRetired = Date.now() - started;
    files.truststore = await truststoreOf(
      'truststore-after',
      (await a.curl('public', caPaths.chain)).body,
    );
    // CA 1's CRL stays published (its keys could be valid still): the TAK Server loads both.
    await restartInput({ ocsp: false, crlPaths: [caPaths.crlDer, crlDerPathOf(2)] });
    await expectConnected(renewed);
    await expectRefused(key('Birch2'));
    await restartInput({ ocsp: true });
    await expectConnected(renewed);
  });
});
