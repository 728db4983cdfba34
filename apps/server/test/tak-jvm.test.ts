import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, instructionsResponseSchema, ZIP_DATA_URL_PREFIX } from '@callsign/contract';
import { revokeMember } from '../src/modules/people/revocation.js';
import { run } from './support/processes.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

// The TAK packages as a JVM loads them (Debian's default-jre-headless: keytool and java): both
// PKCS#12 files with their passwords, and the member certificate through Java's PKIX with
// revocation checked against the portal's CRL alone, as TAK Server does with its crlFile.

const CHECK = fileURLToPath(new URL('./jvm/TakPackageJvmCheck.java', import.meta.url));
const TRUST_PASSWORD = 'public';

let portal: TestPortal;
let dir: string;

beforeAll(async () => {
  const java = await run('sh', ['-c', 'command -v java && command -v keytool']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  portal = await startTestPortal({ env: { PORTAL_DEPLOYMENT: 'alpha' } });
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
      // Past nextUpdate the JVM cannot tell: TAK Server refuses everyone then (product.md §5).
      'member now+15d': 'FAIL UNDETERMINED_REVOCATION_STATUS',
      'revoked now': 'FAIL REVOKED',
      // With the root alone as anchor the issuing CA needs a CRL from the root, which the portal
      // does not publish: TAK Server's truststore must hold both CAs (README "Connecting TAK").
      'member root-only now': 'FAIL UNDETERMINED_REVOCATION_STATUS',
    });
  });
});
