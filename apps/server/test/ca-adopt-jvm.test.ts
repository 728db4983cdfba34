import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, caExpiryResponseSchema } from '@callsign/contract';
import { certificatesIn } from '../src/ca/authority.js';
import {
  makeTakCa,
  makeTakCert,
  makeTakRootTruststore,
  TAK_CAPASS,
  type TakCaFiles,
} from '../src/ca/tak-ca.testing.js';
import { probeTls, type ClientIdentity } from '../src/cli/tak-check/tls-probe.js';
import { testEngines } from '../src/db/test-engines.testing.js';
import { portalOnScratchDatabase, type DatabaseEnv } from './support/portal-on-engine.js';
import { freePort, run } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';
import {
  startStreamingInput,
  takCheckAgainst,
  type StreamingInput,
} from './support/tak-streaming-input.js';
import { startTestPortal, type MemberKey, type TestPortal } from './support/test-portal.js';

// docs/tak.md, "Already running TAK Server? Use its CA", as a unit would follow it: a CA made by
// TAK Server's own certificate scripts (makeRootCa.sh, optionally makeCert.sh ca with the files
// moved, then makeCert.sh server; tak-ca.testing.ts),
// adopted with the built CLI's `ca adopt` into an empty data directory, the portal started on
// it. TAK Server's streaming input (TakStreamingInput.java) keeps the truststore the scripts made
// (truststore-root.jks: the TAK root alone) and its own server key from the TAK CA: no change on
// the server side. A member key issued after adoption is accepted; the portal's OCSP answers for
// it (revoked: refused), its CRL is accepted by the JVM, and tak-check passes.

const CLI = path.join(SERVER_DIST, 'cli.js');
const TAK_HOST = 'takserver.example.org';

let portal: TestPortal;
let databaseEnv: DatabaseEnv;
let work: string;
let tak: TakCaFiles;
let takPort: number;
let hostsFile: string;
const files = { keystore: '', takServerPem: '', truststore: '', portalCrl: '', passphrase: '' };

/**
 * The TAK CA of a case: `makeRootCa.sh` alone (the portal makes its issuing CA under the root),
 * or then `makeCert.sh ca UnitTakSubCA` with the files moved (the intermediate signs members).
 */
const CASES = [
  {
    name: 'a TAK root',
    intermediate: undefined,
    issueDirectly: false,
    chain: [
      'O=TAK, CN=Callsign Portal Issuing CA',
      'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=UnitTakCA',
    ],
  },
  {
    name: 'a TAK root with --issue-directly',
    intermediate: undefined,
    issueDirectly: true,
    chain: ['C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=UnitTakCA'],
  },
  {
    name: 'a TAK intermediate',
    intermediate: 'UnitTakSubCA',
    issueDirectly: false,
    chain: [
      'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=UnitTakSubCA',
      'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=UnitTakCA',
    ],
  },
] as const;

async function setUp(
  env: DatabaseEnv,
  intermediate: string | undefined,
  issueDirectly: boolean,
): Promise<{ destroy(): Promise<void> }> {
  databaseEnv = env;
  const java = await run('sh', ['-c', 'command -v java && command -v keytool']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  work = await mkdtemp(path.join(os.tmpdir(), 'ca-adopt-jvm-'));
  const certs = path.join(work, 'certs');
  tak = await makeTakCa(certs, {
    name: 'UnitTakCA',
    ...(intermediate === undefined ? {} : { intermediate }),
  });
  files.truststore = await makeTakRootTruststore(tak, 'UnitTakCA');
  const takServer = await makeTakCert(certs, 'server', TAK_HOST);
  files.keystore = takServer.p12;
  files.takServerPem = takServer.pem;
  files.passphrase = path.join(work, 'capass');
  await writeFile(files.passphrase, `${TAK_CAPASS}\n`, { mode: 0o600 });

  const dataDir = path.join(work, 'data');
  takPort = await freePort();
  const adopted = await run(
    'node',
    [
      CLI,
      'ca',
      'adopt',
      '--cert',
      tak.caPem,
      '--key',
      tak.caKey,
      '--passphrase-file',
      files.passphrase,
      ...(issueDirectly ? ['--issue-directly'] : []),
    ],
    { env: { ...process.env, ...env, PORTAL_DATA_DIR: dataDir, PORTAL_LOG_LEVEL: 'silent' } },
  );
  expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
  expect(adopted.stdout).toContain(`CN=${intermediate ?? 'UnitTakCA'}`);
  portal = await startTestPortal({
    dataDir,
    env: { ...env, TAK_HOST, TAK_PORT: String(takPort) },
  });
  hostsFile = path.join(work, 'hosts');
  await writeFile(hostsFile, `127.0.0.1 ${portal.host}\n`);
  files.portalCrl = path.join(work, 'portal-crl.pem');
  await writeFile(files.portalCrl, (await portal.curl('public', '/ca/crl.pem')).body);
  return {
    destroy: async () => {
      await portal.destroy();
      await rm(work, { recursive: true, force: true });
    },
  };
}

const memberIdentity = async (key: MemberKey): Promise<ClientIdentity> => ({
  pfx: await readFile(key.pfxFile),
  passphrase: key.password,
});

/** One TLS 1.2 handshake with the streaming input, trusting what /ca/ca.pem serves. */
async function handshake(identity: ClientIdentity): Promise<string> {
  const served = await portal.curl('public', '/ca/ca.pem');
  const result = await probeTls({
    host: TAK_HOST,
    address: '127.0.0.1',
    port: takPort,
    trusted: [served.body],
    client: identity,
    maxVersion: 'TLSv1.2',
    timeoutMs: 20_000,
  });
  return result.kind === 'connected' ? 'accepted' : `refused: ${result.reason}`;
}

describe.each(testEngines())('on $name', (engine) => {
  describe.each(CASES)('$name adopted', ({ intermediate, issueDirectly, chain: expectedChain }) => {
    portalOnScratchDatabase(engine, (env) => setUp(env, intermediate, issueDirectly));

    describe('a TAK Server whose truststore holds only its own CA', () => {
      let input: StreamingInput;

      beforeAll(async () => {
        input = await startStreamingInput({
          port: takPort,
          keystore: files.keystore,
          truststore: files.truststore,
          password: TAK_CAPASS,
          enableOcsp: true,
          // TAK Server's own CRL (makeRootCa.sh's ca.crl), which it has whenever it checks
          // revocation, covers the portal's issuing CA under the root; the portal's, its members.
          crlFiles: [tak.rootCrl, files.portalCrl],
          hostsFile,
        });
      });

      afterAll(async () => {
        await input.stop();
      });

      it('serves the adopted hierarchy at /ca/ca.pem: the CA that signs members, then the TAK root', async () => {
        const served = certificatesIn((await portal.curl('public', '/ca/ca.pem')).body);
        const takRoot = certificatesIn(await readFile(tak.rootPem, 'utf8'))[0];
        expect(served.map((c) => c.subject)).toEqual(expectedChain);
        expect(served.at(-1)?.equal(takRoot as NonNullable<typeof takRoot>)).toBe(true);
      });

      it("GET admin/ca shows the chain up to TAK's root", async () => {
        const boss = await portal.addMember('Boss1', { roles: ['admin'] });
        const response = await portal.api('mtls', 'GET', apiPaths.caExpiry, { key: boss });
        expect(response.status, response.text).toBe(200);
        const { chain } = caExpiryResponseSchema.parse(response.json());
        expect(
          chain.map(({ subject, signs_members, self_signed }) => ({
            subject,
            signs_members,
            self_signed,
          })),
        ).toEqual(
          expectedChain.map((subject, i) => ({
            subject: subject.replaceAll(', ', '\n'),
            signs_members: i === 0,
            self_signed: i === expectedChain.length - 1,
          })),
        );
      });

      it('accepts a member key issued after adoption, and refuses it once revoked (OCSP)', async () => {
        const laptop = await portal.addMember('Heron5');
        const phone = await portal.issueKey('Heron5');
        expect(await handshake(await memberIdentity(phone))).toBe('accepted');
        expect(await input.logged(/^accepted CN=Heron5$/m)).toMatch(/^accepted CN=Heron5$/m);

        const revoked = await portal.api('mtls', 'DELETE', apiPaths.myKey(phone.serial), {
          key: laptop,
        });
        expect(revoked.status, revoked.text).toBe(200);
        expect(await handshake(await memberIdentity(phone))).toMatch(/^refused: /);
        expect(await input.logged(/^refused: .*Certificate has been revoked/m)).toMatch(
          /^refused: .*Certificate has been revoked/m,
        );
        expect(await handshake(await memberIdentity(laptop))).toBe('accepted');
      });

      it("a member's TAK package trusts the TAK Server's own certificate, and its key is accepted", async () => {
        await portal.addMember('Plover4');
        const built = await portal.portal.services.takPackages.build('Plover4', {
          callsign: 'Plover4',
          clientAddress: null,
        });
        const zip = unzipSync(built.packages[0]!.zip);
        const trustName = Object.keys(zip).find((name) => /^truststore-.*\.p12$/.test(name))!;
        const truststore = path.join(work, 'package-truststore.p12');
        await writeFile(truststore, zip[trustName]!);
        const password = portal.config.takTruststorePassword;
        const trusted = await run('openssl', [
          'pkcs12',
          '-in',
          truststore,
          '-passin',
          `pass:${password}`,
          '-nokeys',
          '-out',
          path.join(work, 'package-trusted.pem'),
        ]);
        expect(trusted.code, trusted.stderr).toBe(0);
        // The device checks TAK Server's certificate (makeCert.sh server, by the TAK root) with it.
        const verified = await run('openssl', [
          'verify',
          '-CAfile',
          path.join(work, 'package-trusted.pem'),
          files.takServerPem,
        ]);
        expect(verified.stdout + verified.stderr).toMatch(/: OK/);
        const clientName = Object.keys(zip).find((name) => name === 'Plover4.p12')!;
        expect(await handshake({ pfx: Buffer.from(zip[clientName]!), passphrase: 'Plover4' })).toBe(
          'accepted',
        );
      });

      it('tak-check passes against it with the adopted CA', async () => {
        const result = await takCheckAgainst(
          { dataDir: portal.dataDir, port: portal.port, env: databaseEnv },
          { host: TAK_HOST, port: takPort },
        );
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).toMatch(/tak-check: 0 of \d+ checks failed/);
      });
    });
  });
});
