import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../src/db/test-engines.testing.js';
import { apiPaths } from '@callsign/contract';
import { probeTls, type ClientIdentity } from '../src/cli/tak-check/tls-probe.js';
import { portalOnScratchDatabase, type DatabaseEnv } from './support/portal-on-engine.js';
import { freePort, run } from './support/processes.js';
import {
  startStreamingInput,
  takCheckAgainst,
  type StreamingInput,
} from './support/tak-streaming-input.js';
import { startTestPortal, type MemberKey, type TestPortal } from './support/test-portal.js';

// TAK Server's streaming input (8089) as TakStreamingInput.java copies it from TAK Server 5.7's
// SSLConfig.initTrust: a JVM trust manager with PKIX trust anchors (the portal's two CAs beside
// an "existing" CA the server trusted before, made here with openssl, with its own CRL and
// client), revocation from CRL files read once at start, and with enableOCSP="true" the JVM's
// own OCSP client asking the portal on every handshake. The listener is never restarted within
// a test: what it refuses, it refuses without one.

const TAK_HOST = 'tak.example.org';
const STORE_PASSWORD = 'atakatak';

let portal: TestPortal;
/** DATABASE_URL of the engine (empty: SQLite), for the tak-check command too. */
let databaseEnv: DatabaseEnv;
let dir: string;
let takPort: number;
/** `127.0.0.1 {portal host}`: where the JVM finds the OCSP URL's host (jdk.net.hosts.file). */
let hostsFile: string;
const files = {
  keystore: '',
  truststore: '',
  portalCrl: '',
  existingCrl: '',
  existingClient: '',
};

async function sh(command: string, args: string[]) {
  const result = await run(command, args, { cwd: dir, timeout: 120_000 });
  expect(result.code, `${command} ${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0);
  return result;
}

/** The existing CA, as `makeRootCa.sh` leaves one: a root, one client, an (empty) CRL. */
async function makeExistingCa() {
  const subj = (cn: string) => ['-subj', `/O=Existing TAK/CN=${cn}`];
  await sh('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '30',
    '-keyout',
    'existing-ca.key',
    '-out',
    'existing-ca.pem',
    ...subj('Existing TAK Root CA'),
    '-addext',
    'basicConstraints=critical,CA:true',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await sh('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'admin.key',
    '-out',
    'admin.csr',
    ...subj('admin'),
  ]);
  await writeFile(
    path.join(dir, 'client.ext'),
    'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  );
  await sh('openssl', [
    'x509',
    '-req',
    '-in',
    'admin.csr',
    '-CA',
    'existing-ca.pem',
    '-CAkey',
    'existing-ca.key',
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    'client.ext',
    '-out',
    'admin.pem',
  ]);
  files.existingClient = path.join(dir, 'admin.p12');
  await sh('openssl', [
    'pkcs12',
    '-export',
    '-in',
    'admin.pem',
    '-inkey',
    'admin.key',
    '-out',
    files.existingClient,
    '-passout',
    `pass:${STORE_PASSWORD}`,
  ]);
  await writeFile(
    path.join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = existing\n[existing]\ndatabase = index.txt\ncrlnumber = crlnumber\n' +
      'default_md = sha256\ndefault_crl_days = 30\n',
  );
  await writeFile(path.join(dir, 'index.txt'), '');
  await writeFile(path.join(dir, 'crlnumber'), '01\n');
  files.existingCrl = path.join(dir, 'existing-crl.pem');
  await sh('openssl', [
    'ca',
    '-config',
    'ca.cnf',
    '-gencrl',
    '-keyfile',
    'existing-ca.key',
    '-cert',
    'existing-ca.pem',
    '-out',
    files.existingCrl,
  ]);
}

/** The portal on one engine, TAK Server's key store and truststore, the existing CA. */
async function setUp(env: DatabaseEnv): Promise<TestPortal> {
  databaseEnv = env;
  const java = await run('sh', ['-c', 'command -v java && command -v keytool']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  takPort = await freePort();
  portal = await startTestPortal({ env: { ...env, TAK_HOST, TAK_PORT: String(takPort) } });
  dir = portal.workDir;
  hostsFile = path.join(dir, 'hosts');
  await writeFile(hostsFile, `127.0.0.1 ${portal.host}\n`);

  // TAK Server's key from the portal's CA (server-cert), as a PKCS#12 key store.
  const issued = await portal.portal.certificates.issueServerCertificate([TAK_HOST]);
  await writeFile(path.join(dir, 'tak.pem'), [issued.certificatePem, ...issued.chainPem].join(''));
  await writeFile(path.join(dir, 'tak.key'), issued.privateKeyPem, { mode: 0o600 });
  files.keystore = path.join(dir, 'takserver.p12');
  await sh('openssl', [
    'pkcs12',
    '-export',
    '-in',
    'tak.pem',
    '-inkey',
    'tak.key',
    '-name',
    'takserver',
    '-out',
    files.keystore,
    '-passout',
    `pass:${STORE_PASSWORD}`,
  ]);

  await makeExistingCa();

  // The truststore keeps the existing CA and gets the portal's two beside it.
  await writeFile(path.join(dir, 'portal-issuing.pem'), portal.portal.ca.issuingCertificatePem);
  await writeFile(path.join(dir, 'portal-root.pem'), portal.portal.ca.rootCertificatePem);
  files.truststore = path.join(dir, 'truststore.p12');
  for (const [alias, file] of [
    ['existing-root', 'existing-ca.pem'],
    ['portal-issuing', 'portal-issuing.pem'],
    ['portal-root', 'portal-root.pem'],
  ] as const) {
    await sh('keytool', [
      '-importcert',
      '-noprompt',
      '-storetype',
      'PKCS12',
      '-keystore',
      files.truststore,
      '-storepass',
      STORE_PASSWORD,
      '-alias',
      alias,
      '-file',
      file,
    ]);
  }
  files.portalCrl = path.join(dir, 'portal-crl.pem');
  await writeFile(files.portalCrl, (await portal.curl('public', '/ca/crl.pem')).body);
  return portal;
}

type Listener = StreamingInput;

/** TakStreamingInput.java on 127.0.0.1:takPort: `<tls enableOCSP=...>` with these <crl> files. */
function startInput(enableOcsp: boolean, crlFiles: string[]): Promise<Listener> {
  return startStreamingInput({
    port: takPort,
    keystore: files.keystore,
    truststore: files.truststore,
    password: STORE_PASSWORD,
    enableOcsp,
    crlFiles,
    hostsFile,
  });
}

const pfxOf = async (file: string, passphrase: string): Promise<ClientIdentity> => ({
  pfx: await readFile(file),
  passphrase,
});
const memberIdentity = (key: MemberKey) => pfxOf(key.pfxFile, key.password);
const existingIdentity = () => pfxOf(files.existingClient, STORE_PASSWORD);

/** One TLS 1.2 handshake (the server's verdict on the client is in it): 'accepted' or why not. */
async function handshake(identity: ClientIdentity): Promise<string> {
  const result = await probeTls({
    host: TAK_HOST,
    address: '127.0.0.1',
    port: takPort,
    trusted: [portal.portal.ca.chainPem],
    client: identity,
    maxVersion: 'TLSv1.2',
    timeoutMs: 20_000,
  });
  return result.kind === 'connected' ? 'accepted' : `refused: ${result.reason}`;
}

/** The member revokes their own key with another of their keys, as the web app does. */
async function revokeOwnKey(laptop: MemberKey, phone: MemberKey): Promise<void> {
  const response = await portal.api('mtls', 'DELETE', apiPaths.myKey(phone.serial), {
    key: laptop,
  });
  expect(response.status, response.text).toBe(200);
}

/** A CRL of the portal whose nextUpdate passed 16 days ago (a TAK Server cut off for 30 days). */
async function lapsedPortalCrl(): Promise<string> {
  const day = 24 * 3_600_000;
  const lapsed = await portal.portal.ca.createCrl({
    revoked: [],
    crlNumber: 1n,
    thisUpdate: new Date(Date.now() - 30 * day),
    nextUpdate: new Date(Date.now() - 16 * day),
  });
  const file = path.join(dir, 'portal-crl-lapsed.pem');
  await writeFile(file, lapsed.pem);
  return file;
}

describe.each(testEngines())('on $name', (engine) => {
  portalOnScratchDatabase(engine, setUp);

  describe('streaming input with enableOCSP="true"', () => {
    let input: Listener;

    beforeAll(async () => {
      input = await startInput(true, [files.portalCrl, files.existingCrl]);
    });

    afterAll(async () => {
      await input.stop();
    });

    it("accepts a member's key and a client of the existing CA", async () => {
      const key = await portal.addMember('Heron5');
      expect(await handshake(await memberIdentity(key))).toBe('accepted');
      expect(await handshake(await existingIdentity())).toBe('accepted');
      expect(await input.logged(/^accepted CN=Heron5$/m)).toMatch(/^accepted CN=Heron5$/m);
      expect(await input.logged(/^accepted CN=admin,O=Existing TAK$/m)).toMatch(
        /^accepted CN=admin,O=Existing TAK$/m,
      );
    });

    it("records the TAK Server's check: the key's last_checked_at and the member's last_seen_tak_at", async () => {
      const key = await portal.addMember('Avocet2');
      const keysOf = async () => {
        const response = await portal.api('mtls', 'GET', apiPaths.myKeys, { key });
        expect(response.status, response.text).toBe(200);
        return response.json() as {
          keys: { serial: string; last_checked_at: string | null }[];
          last_seen_tak_at: string | null;
        };
      };
      const before = await keysOf();
      expect(before.last_seen_tak_at).toBeNull();
      expect(before.keys.find((entry) => entry.serial === key.serial)?.last_checked_at).toBeNull();

      // The JVM asks the portal's OCSP during this handshake; the portal writes what it saw
      // after the answer (modules/certificates/presence.ts), so the list shows it shortly after.
      const handshakeAt = Date.now();
      expect(await handshake(await memberIdentity(key))).toBe('accepted');
      let after = await keysOf();
      for (let waited = 0; after.last_seen_tak_at === null && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await keysOf();
      }
      expect(after.last_seen_tak_at).not.toBeNull();
      expect(Date.parse(after.last_seen_tak_at ?? '')).toBeGreaterThanOrEqual(
        Math.floor(handshakeAt / 1000) * 1000,
      );
      expect(after.keys.find((entry) => entry.serial === key.serial)?.last_checked_at).toBe(
        after.last_seen_tak_at,
      );
    });

    it('refuses a key revoked through the API on the next handshake, within 2 s, without a restart', async () => {
      const laptop = await portal.addMember('Kestrel3');
      const phone = await portal.issueKey('Kestrel3');
      expect(await handshake(await memberIdentity(phone))).toBe('accepted');
      const pid = input.pid;

      await revokeOwnKey(laptop, phone);
      const revokedAt = Date.now();
      const verdict = await handshake(await memberIdentity(phone));
      const tookMs = Date.now() - revokedAt;
      expect(verdict).toMatch(/^refused: /);
      expect(tookMs).toBeLessThan(2000);
      // The JVM's own words: revoked, by the portal's OCSP signer.
      expect(await input.logged(/^refused: .*Certificate has been revoked/m)).toMatch(
        /^refused: .*Certificate has been revoked/m,
      );
      expect(input.pid).toBe(pid);
      // The member's other key, and the existing CA's client, are still let in.
      expect(await handshake(await memberIdentity(laptop))).toBe('accepted');
      expect(await handshake(await existingIdentity())).toBe('accepted');
    });
  });

  describe('streaming input with CRL files only', () => {
    it('accepts members and the existing CA client when each CA has its <crl>, and lets a revoked key in until a restart', async () => {
      const laptop = await portal.addMember('Plover8');
      const phone = await portal.issueKey('Plover8');
      await writeFile(files.portalCrl, (await portal.curl('public', '/ca/crl.pem')).body);
      let input = await startInput(false, [files.portalCrl, files.existingCrl]);
      try {
        expect(await handshake(await memberIdentity(phone))).toBe('accepted');
        expect(await handshake(await existingIdentity())).toBe('accepted');
        await revokeOwnKey(laptop, phone);
        // What the audit found: the CRL was read when the listener started, and only then.
        expect(await handshake(await memberIdentity(phone))).toBe('accepted');
      } finally {
        await input.stop();
      }
      // The refresh script's way: fetch the CRL, restart (which drops every connection).
      await writeFile(files.portalCrl, (await portal.curl('public', '/ca/crl.pem')).body);
      input = await startInput(false, [files.portalCrl, files.existingCrl]);
      try {
        expect(await handshake(await memberIdentity(phone))).toMatch(/^refused: /);
        expect(await input.logged(/^refused: .*Certificate has been revoked/m)).toMatch(
          /^refused: .*Certificate has been revoked/m,
        );
        expect(await handshake(await memberIdentity(laptop))).toBe('accepted');
        expect(await handshake(await existingIdentity())).toBe('accepted');
      } finally {
        await input.stop();
      }
    });

    it("refuses every client of a trusted CA whose CRL it does not hold (the portal's CRL alone)", async () => {
      const input = await startInput(false, [files.portalCrl]);
      try {
        const key = await portal.addMember('Snipe2');
        expect(await handshake(await memberIdentity(key))).toBe('accepted');
        expect(await handshake(await existingIdentity())).toMatch(/^refused: /);
        expect(await input.logged(/^refused: .*revocation status/im)).toMatch(
          /^refused: .*revocation status/im,
        );
      } finally {
        await input.stop();
      }
    });

    it('a <crl> file holding both CRLs one after the other: the JVM reads the first only', async () => {
      // SSLConfig.initTrust reads each crlFile with CertificateFactory.generateCRL (one CRL), not
      // generateCRLs: every CA needs a <crl> element of its own.
      const key = await portal.addMember('Dunlin4');
      const bundle = path.join(dir, 'crl-bundle.pem');
      const portalPem = await readFile(files.portalCrl, 'utf8');
      const existingPem = await readFile(files.existingCrl, 'utf8');
      for (const [first, second, admitted] of [
        [portalPem, existingPem, 'member'],
        [existingPem, portalPem, 'existing'],
      ] as const) {
        await writeFile(bundle, first + second);
        const input = await startInput(false, [bundle]);
        try {
          const member = await handshake(await memberIdentity(key));
          const existing = await handshake(await existingIdentity());
          expect({ member, existing }).toEqual(
            admitted === 'member'
              ? { member: 'accepted', existing: expect.stringMatching(/^refused: /) as unknown }
              : { member: expect.stringMatching(/^refused: /) as unknown, existing: 'accepted' },
          );
        } finally {
          await input.stop();
        }
      }
    });

    it('the cliff: a CRL past nextUpdate refuses every member of its CA; OCSP still lets them in', async () => {
      const lapsed = await lapsedPortalCrl();
      const key = await portal.addMember('Curlew6');
      let input = await startInput(false, [lapsed, files.existingCrl]);
      try {
        expect(await handshake(await memberIdentity(key))).toMatch(/^refused: /);
        expect(await input.logged(/^refused: .*revocation status/im)).toMatch(
          /^refused: .*revocation status/im,
        );
        // The other CA's clients are judged by their own CRL.
        expect(await handshake(await existingIdentity())).toBe('accepted');
      } finally {
        await input.stop();
      }
      // With enableOCSP the JVM asks OCSP first and reads the CRL only when OCSP gives no answer.
      input = await startInput(true, [lapsed, files.existingCrl]);
      try {
        expect(await handshake(await memberIdentity(key))).toBe('accepted');
      } finally {
        await input.stop();
      }
    });
  });

  describe('tak-check against the streaming input', () => {
    const takCheck = (extra: string[] = []) =>
      takCheckAgainst(
        { dataDir: portal.dataDir, port: portal.port, env: databaseEnv },
        { host: TAK_HOST, port: takPort },
        extra,
      );

    it('with enableOCSP: a key revoked during the run is refused, and the existing CA client accepted', async () => {
      await writeFile(files.portalCrl, (await portal.curl('public', '/ca/crl.pem')).body);
      const input = await startInput(true, [files.portalCrl, files.existingCrl]);
      try {
        const result = await takCheck([
          '--existing-client',
          `${files.existingClient}:${STORE_PASSWORD}`,
        ]);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).toMatch(
          /^OK {3}revoked key refused at once: TakCheck\d+ \(serial [0-9a-f]+, revoked \d+ ms before\) refused with .*, without a restart$/m,
        );
        expect(result.stdout).toMatch(/^OK {3}existing CA client accepted: .*admin\.p12 accepted/m);
        expect(result.stdout).toContain('tak-check: 0 of 8 checks failed');
        expect(await input.logged(/^refused: .*Certificate has been revoked/m)).toMatch(
          /^refused: .*Certificate has been revoked/m,
        );
      } finally {
        await input.stop();
      }
    });

    it('with CRL files only: the revoked-at-once check fails and names enableOCSP', async () => {
      const input = await startInput(false, [files.portalCrl]);
      try {
        const result = await takCheck([
          '--existing-client',
          `${files.existingClient}:${STORE_PASSWORD}`,
        ]);
        expect(result.code, result.stdout + result.stderr).toBe(3);
        expect(result.stdout).toMatch(
          /^FAIL revoked key refused at once: revoked certificate accepted: .*set enableOCSP="true" on <tls> in CoreConfig\.xml/m,
        );
        // The existing CA's CRL is missing from its <crl> entries: its client is locked out.
        expect(result.stdout).toMatch(
          /^FAIL existing CA client accepted: .*admin\.p12 refused with .*CRL/m,
        );
      } finally {
        await input.stop();
      }
    });

    it('says SKIP for the existing CA client when none is given', async () => {
      const input = await startInput(true, [files.portalCrl, files.existingCrl]);
      try {
        const result = await takCheck();
        expect(result.stdout).toMatch(
          /^SKIP existing CA client accepted: no --existing-client PFX\[:PASSWORD\] given$/m,
        );
        expect(result.code, result.stdout + result.stderr).toBe(0);
      } finally {
        await input.stop();
      }
    });
  });
});
