import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, instructionsResponseSchema, ZIP_DATA_URL_PREFIX } from '@callsign/contract';
import { revokeMember } from '../src/commands/revoke-member.js';
import { freePort, run } from './support/processes.js';
import { REPO_ROOT, SERVER_DIST } from './support/repo.js';
import { startStreamingInput } from './support/tak-streaming-input.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

// The TAK packages as a JVM loads them (Debian's default-jre-headless: keytool and java): both
// PKCS#12 files with their passwords, and the member certificate through Java's PKIX with
// revocation checked against the portal's CRL alone, as TAK Server does with its crlFile.

const CHECK = fileURLToPath(new URL('./jvm/TakPackageJvmCheck.java', import.meta.url));
const OCSP_CHECK = fileURLToPath(new URL('./jvm/OcspJvmCheck.java', import.meta.url));
const CLI = path.join(SERVER_DIST, 'cli.js');
const TAK_HOST = 'tak.example.org';
const TRUST_PASSWORD = 'public';

let portal: TestPortal;
let dir: string;
let takPort: number;

beforeAll(async () => {
  const java = await run('sh', ['-c', 'command -v java && command -v keytool']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  takPort = await freePort();
  portal = await startTestPortal({
    env: { PORTAL_DEPLOYMENT: 'alpha', TAK_HOST, TAK_PORT: String(takPort) },
  });
  dir = portal.workDir;
});

afterAll(async () => {
  await portal.destroy();
});

/** The ATAK package of a member, as the API gives it, unpacked into files. */
async function atakPackage(callsign: string) {
  await portal.addMember(callsign);
  const { jwt } = await portal.portal.tokens.issue({
    scope: 'member',
    subject: callsign,
    ttlMs: 60_000,
  });
  const response = await portal.api('public', 'GET', apiPaths.instructions, { bearer: jwt });
  expect(response.status, response.text).toBe(200);
  const atak = instructionsResponseSchema.parse(response.json()).files.tak[0]!;
  const zip = unzipSync(Buffer.from(atak.data.slice(ZIP_DATA_URL_PREFIX.length), 'base64'));
  const truststore = path.join(dir, `${callsign}-truststore-alpha.p12`);
  const keystore = path.join(dir, `${callsign}.p12`);
  await writeFile(truststore, zip['truststore-alpha.p12']!);
  await writeFile(keystore, zip[`${callsign}.p12`]!);
  return { truststore, keystore };
}

describe('TAK packages in a JVM', () => {
  let eagle: { truststore: string; keystore: string };
  let gone: { truststore: string; keystore: string };
  let crlFile: string;

  beforeAll(async () => {
    eagle = await atakPackage('Eagle7');
    gone = await atakPackage('Gone4');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Gone4',
      actor: 'test',
      clientAddress: null,
    });
    crlFile = path.join(dir, 'crl.pem');
    await writeFile(crlFile, (await portal.curl('public', '/ca/crl.pem')).body);
  });

  it('keytool lists the truststore (two trusted CAs) and the member keystore (one key entry)', async () => {
    const trust = await run('keytool', [
      '-list',
      '-storetype',
      'PKCS12',
      '-keystore',
      eagle.truststore,
      '-storepass',
      TRUST_PASSWORD,
    ]);
    expect(trust.code, trust.stdout + trust.stderr).toBe(0);
    expect(trust.stdout).toContain('Your keystore contains 2 entries');
    expect(trust.stdout.match(/trustedCertEntry/g)).toHaveLength(2);

    const keys = await run('keytool', [
      '-list',
      '-storetype',
      'PKCS12',
      '-keystore',
      eagle.keystore,
      '-storepass',
      'Eagle7',
    ]);
    expect(keys.code, keys.stdout + keys.stderr).toBe(0);
    expect(keys.stdout).toContain('Your keystore contains 1 entry');
    expect(keys.stdout).toMatch(/^eagle7, .*PrivateKeyEntry,/im);

    const wrong = await run('keytool', [
      '-list',
      '-storetype',
      'PKCS12',
      '-keystore',
      eagle.keystore,
      '-storepass',
      'eagle7',
    ]);
    expect(wrong.code).not.toBe(0);
  });

  it("validates the member's certificate with PKIX against the CRL now and in 13 days, and refuses a revoked one", async () => {
    const result = await run(
      'java',
      [
        CHECK,
        eagle.truststore,
        TRUST_PASSWORD,
        eagle.keystore,
        'Eagle7',
        crlFile,
        gone.keystore,
        'Gone4',
      ],
      { timeout: 120_000 },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const answers = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    expect(answers).toEqual({
      'truststore trusted certificates': '2',
      'keystore chain': '3',
      'keystore subject': 'CN=Eagle7',
      'crl days': '14',
      'member now': 'OK',
      'member now+13d': 'OK',
      // Past nextUpdate the JVM cannot tell: TAK Server refuses everyone then (docs/api.md).
      'member now+15d': 'FAIL UNDETERMINED_REVOCATION_STATUS',
      'revoked now': 'FAIL REVOKED',
      // With the root alone as anchor the issuing CA needs a CRL from the root, which the portal
      // does not publish: TAK Server's truststore must hold both CAs (docs/tak.md).
      'member root-only now': 'FAIL UNDETERMINED_REVOCATION_STATUS',
    });
  });
});

describe("OCSP as TAK Server's JVM asks it (enableOCSP)", () => {
  it('is answered by the delegated OCSP signer, with and without a nonce, good then revoked', async () => {
    const key = await portal.addMember('Osprey2');
    const files = {
      leaf: path.join(dir, 'osprey2.pem'),
      issuing: path.join(dir, 'issuing-ca.pem'),
      root: path.join(dir, 'root-ca.pem'),
    };
    await writeFile(files.leaf, key.certificatePem);
    await writeFile(files.issuing, portal.portal.ca.issuingCertificatePem);
    await writeFile(files.root, portal.portal.ca.rootCertificatePem);
    // Plain HTTP on the portal's port, as the URL in the certificate says (docs/api.md).
    const url = `http://127.0.0.1:${portal.port}/ca/ocsp`;
    const check = async (nonce: boolean) => {
      const result = await run(
        'java',
        [
          `-Djdk.security.certpath.ocspNonce=${String(nonce)}`,
          OCSP_CHECK,
          files.leaf,
          files.issuing,
          files.root,
          url,
        ],
        { timeout: 120_000 },
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      return result.stdout.trim();
    };
    expect(await check(false)).toBe('OK');
    // Java then sends a nonce; the cached answer carries none, which it accepts (RFC 5019).
    expect(await check(true)).toBe('OK');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Osprey2',
      actor: 'test',
      clientAddress: null,
    });
    for (const nonce of [false, true]) {
      const refused = await check(nonce);
      expect(refused).toMatch(/^FAIL REVOKED /);
      expect(refused).toContain('authority: CN=Callsign Portal OCSP Responder');
    }
  });
});

/** The fenced `sh` blocks of docs/tak.md, in order. */
async function guideBlocks(): Promise<string[]> {
  const guide = await readFile(path.join(REPO_ROOT, 'docs', 'tak.md'), 'utf8');
  return [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * TakStreamingInput.java (TAK Server's streaming input, CRL files only) on 127.0.0.1:takPort with
 * the files docs/tak.md made.
 */
function startStandIn(files: string) {
  return startStreamingInput({
    port: takPort,
    keystore: path.join(files, 'takserver.jks'),
    truststore: path.join(files, 'truststore-root.jks'),
    password: 'atakatak',
    enableOcsp: false,
    crlFiles: [path.join(files, 'crl-bundle.pem')],
  });
}

describe('docs/tak.md, followed on this machine (no TAK Server)', () => {
  let work: string;
  let files: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    work = path.join(dir, 'guide');
    files = path.join(work, 'files');
    await mkdir(files, { recursive: true });
    env = {
      ...process.env,
      PORTAL_DATA_DIR: portal.dataDir,
      PORTAL_LOG_LEVEL: 'silent',
      TAK_HOST,
      TAK_PORT: String(takPort),
      // The guide's curl has a publicly trusted portal in mind; here it is the portal's own CA.
      CURL_CA_BUNDLE: portal.chainFile,
    };
    // A TAK Server in use, as TAK's makeRootCa.sh leaves it: its own CA in truststore-root.jks
    // and that CA's (empty) CRL in ca.crl.
    const at = (name: string) => path.join(files, name);
    const steps = [
      ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-keyout', at('ca-do-not-share.key'), '-out', at('ca.pem'), '-subj', '/CN=TAK Server CA',
        '-days', '30'],
      ['keytool', '-import', '-trustcacerts', '-file', at('ca.pem'), '-keystore',
        at('truststore-root.jks'), '-alias', 'takserver-ca', '-storepass', 'atakatak', '-noprompt'],
      ['openssl', 'ca', '-config', at('ca.cfg'), '-gencrl', '-keyfile', at('ca-do-not-share.key'),
        '-cert', at('ca.pem'), '-out', at('ca.crl')],
    ]; // prettier-ignore
    await writeFile(at('crl_index.txt'), '');
    await writeFile(
      at('ca.cfg'),
      `[ca]\ndefault_ca=x\n[x]\ndatabase=${at('crl_index.txt')}\ndefault_md=sha256\n` +
        'default_crl_days=730\n',
    );
    for (const [command, ...args] of steps) {
      const result = await run(command!, args);
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
  });

  const takCheck = () =>
    run('node', [CLI, 'tak-check', '--address', '127.0.0.1', '--timeout', '10'], { env });

  it('makes the key store, adds the portal CA beside the existing one and writes the CRL bundle, as written', async () => {
    const blocks = await guideBlocks();
    const steps = blocks.filter(
      (block) =>
        block.includes('keytool -importkeystore') ||
        block.includes('keytool -importcert') ||
        block.includes('tak crl-bundle'),
    );
    expect(steps).toHaveLength(3);
    for (const block of steps) {
      const script = block
        .replaceAll('npm run --silent portal --', `node '${CLI}'`)
        .replaceAll('/opt/tak/certs/files', files)
        .replaceAll('/tmp/tak', path.join(work, 'tak'))
        .replaceAll('http://portal.example.org', `http://127.0.0.1:${portal.port}`);
      const result = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: work, env });
      expect(result.code, `${script}\n${result.stdout}${result.stderr}`).toBe(0);
    }
    const list = (store: string) =>
      run('keytool', ['-list', '-keystore', path.join(files, store), '-storepass', 'atakatak']);
    expect((await list('takserver.jks')).stdout).toMatch(/^takserver, .*PrivateKeyEntry/m);
    // The existing CA stays; the portal's two are beside it.
    const trust = (await list('truststore-root.jks')).stdout;
    expect(trust).toContain('Your keystore contains 3 entries');
    expect(trust).toMatch(/^takserver-ca, .*trustedCertEntry/m);
    expect(trust).toMatch(/^portal-issuing, .*trustedCertEntry/m);
    expect(trust).toMatch(/^portal-root, .*trustedCertEntry/m);
    // The bundle: the portal's CRL first (signed by its CA), then TAK Server's own CA's.
    const bundle = await readFile(path.join(files, 'crl-bundle.pem'), 'utf8');
    const crls = bundle.match(/-----BEGIN X509 CRL-----[\s\S]*?-----END X509 CRL-----\n/g) ?? [];
    expect(crls).toHaveLength(2);
    const first = await run(
      'openssl',
      ['crl', '-noout', '-issuer', '-CAfile', path.join(files, 'portal-ca.pem')],
      { input: crls[0] },
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Callsign Portal Issuing CA');
    const second = await run(
      'openssl',
      ['crl', '-noout', '-issuer', '-CAfile', path.join(files, 'ca.pem')],
      {
        input: crls[1],
      },
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('TAK Server CA');
  });

  it("the guide's CoreConfig.xml: OCSP on, the bundle first, cert_https moved to 8447, the same truststore", async () => {
    const guide = await readFile(path.join(REPO_ROOT, 'docs', 'tak.md'), 'utf8');
    const xml = /```xml\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    expect(xml).toMatch(/<tls [^>]*enableOCSP="true"/);
    // responderUrl goes into the certificates TAK Server's own CA signs, never the portal's URL.
    expect(xml).not.toContain('responderUrl');
    const crls = [...xml.matchAll(/<crl [^>]*crlFile="([^"]+)"/g)].map((match) => match[1]);
    expect(crls).toEqual(['certs/files/crl-bundle.pem', 'certs/files/ca.crl']);
    expect(xml).toMatch(/<connector port="8447" clientAuth="false" _name="cert_https"\/>/);
    expect(xml).not.toMatch(/<connector port="8446"/);
    // The truststore the keytool steps added the portal's CA to, beside TAK Server's own.
    expect(xml).toContain('truststoreFile="certs/files/truststore-root.jks"');
    expect(guide).not.toMatch(/truststore-portal\.jks/);
  });

  it('tak-check against a JVM set up like TAK Server with those files: green after a CRL refresh', async () => {
    let standIn = await startStandIn(files);
    try {
      const first = await takCheck();
      // The stand-in reads its CRL once, as TAK Server does without enableOCSP: the key revoked
      // during the run gets in (the second failure, naming enableOCSP).
      expect(first.code, first.stdout + first.stderr).toBe(2);
      expect(first.stdout).toMatch(/^FAIL revoked key refused at once: .*enableOCSP/m);
      expect(first.stdout).toMatch(/^OK {3}chain: chains to the truststore/m);
      expect(first.stdout).toMatch(/^OK {3}member certificate accepted: TakCheck/m);
      expect(first.stdout).toMatch(/^FAIL revoked certificate refused: not checked yet/m);
      expect(standIn.log()).toMatch(/^accepted CN=TakCheck\d+$/m);
    } finally {
      await standIn.stop();
    }

    // The refresh script, set up as deploy/tak-server/tak-crl-refresh.env has it.
    const marker = path.join(work, 'restarted');
    const refreshed = await run(
      'bash',
      [path.join(REPO_ROOT, 'deploy/tak-server/refresh-crl.sh')],
      {
        env: {
          ...env,
          CRL_URL: `${portal.origin('public')}/ca/crl.pem`,
          CA_FILE: path.join(files, 'portal-ca.pem'),
          CRL_FILE: path.join(files, 'crl-bundle.pem'),
          ALSO_CRLS: path.join(files, 'ca.crl'),
          // The stand-in checks the CRL file alone (no OCSP): it needs the restart on a change.
          RESTART_ON_CHANGE: 'yes',
          RELOAD_COMMAND: `touch '${marker}'`,
        },
      },
    );
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain('the revoked list changed');
    expect((await run('test', ['-f', marker])).code).toBe(0);

    standIn = await startStandIn(files);
    try {
      const second = await takCheck();
      // Green but for the key revoked during this run (no OCSP here; tak-streaming-jvm.test.ts
      // has the listener with enableOCSP, all green).
      expect(second.code, second.stdout + second.stderr).toBe(1);
      expect(second.stdout).toMatch(/^FAIL revoked key refused at once: .*enableOCSP/m);
      expect(second.stdout).toMatch(/^OK {3}revoked certificate refused: /m);
      expect(second.stdout).toContain('tak-check: 1 of 8 checks failed');
      // The JVM refuses the revoked test certificate for being revoked.
      expect(standIn.log()).toMatch(/^refused: .*Certificate has been revoked/m);
    } finally {
      await standIn.stop();
    }
  });

  it('tak-check names the lock-out when the JVM holds a CRL past its nextUpdate', async () => {
    const day = 24 * 3_600_000;
    const lapsed = await portal.portal.ca.createCrl({
      revoked: [],
      crlNumber: 2n,
      thisUpdate: new Date(Date.now() - 30 * day),
      nextUpdate: new Date(Date.now() - 16 * day),
    });
    await writeFile(path.join(files, 'crl-bundle.pem'), lapsed.pem);
    const standIn = await startStandIn(files);
    try {
      const result = await takCheck();
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^FAIL member certificate accepted: .*refused with TLS alert "certificate unknown": .*CRL is past nextUpdate/m,
      );
      expect(standIn.log()).toMatch(/^refused: .*(revocation status|CRL)/im);
    } finally {
      await standIn.stop();
    }
  });
});
