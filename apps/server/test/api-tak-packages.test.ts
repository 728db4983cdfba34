import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  instructionsResponseSchema,
  ZIP_DATA_URL_PREFIX,
  type InstructionsResponse,
} from '@callsign/contract';
import { normalizeSerial } from '../src/ca/serial.js';
import { findCertificateBySerial } from '../src/modules/certificates/repository.js';
import type { CertificateAuthority } from '../src/ca/authority.js';
import { Membership } from '../src/modules/people/membership.js';
import { revokeMember } from '../src/commands/revoke-member.js';
import { xpathString } from '../src/tak/xpath.testing.js';
import { PresetService } from '../src/modules/presets/service.js';
import { TakPackageService } from '../src/modules/tak/service.js';
import { takSiteSettings } from '../src/modules/tak/settings.js';
import { ForbiddenError } from '../src/errors.js';
import { CertificateService } from '../src/modules/certificates/service.js';
import { testEngines } from '../src/db/test-engines.testing.js';
import { portalOnScratchDatabase, type DatabaseEnv } from './support/portal-on-engine.js';
import { run } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

// The TAK settings packages (docs/tak.md) as a member gets them, checked offline by the
// shared acceptance script (zip, manifest, server.pref, both PKCS#12 files).
const CHECK_SCRIPT = fileURLToPath(
  new URL('../../../../shared/tools/check-tak-package.sh', import.meta.url),
);
const CLI = path.join(SERVER_DIST, 'cli.js');

const TAK_HOST = 'tak.example.org';
const TRUST_PASSWORD = 'trust-me';
const TAK_ENV = {
  PORTAL_DEPLOYMENT: 'alpha',
  TAK_HOST,
  TAK_PORT: '8089',
  PORTAL_TAK_TRUSTSTORE_PASSWORD: TRUST_PASSWORD,
};

// The acceptance checker lives in the project's shared folder, beside the repository (as CI
// lays it out); without it these tests cannot judge a package, so they say so plainly.
beforeAll(() => {
  if (!existsSync(CHECK_SCRIPT)) {
    throw new Error(`${CHECK_SCRIPT} is missing: clone the repository next to the shared/ folder`);
  }
});

/** Runs check-tak-package.sh on one zip; its exit status is the number of failed checks. */
async function checkPackage(zipFile: string, callsign: string) {
  const result = await run('bash', [
    CHECK_SCRIPT,
    zipFile,
    callsign,
    callsign,
    TRUST_PASSWORD,
    TAK_HOST,
  ]);
  expect(result.code, `check-tak-package.sh ${zipFile}:\n${result.stdout}${result.stderr}`).toBe(0);
  expect(result.stdout).not.toContain('FAIL');
  return result.stdout;
}

/** Certificates (PEM) of a PKCS#12 file, as openssl reads them. */
async function certificatesIn(file: string, password: string, only: string[] = []) {
  const result = await run('openssl', [
    'pkcs12',
    '-in',
    file,
    '-passin',
    `pass:${password}`,
    '-nokeys',
    ...only,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return [
    ...result.stdout.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g),
  ].map((match) => new X509Certificate(match[0]));
}

function zipOf(file: { data: string }): Uint8Array {
  expect(file.data.startsWith(ZIP_DATA_URL_PREFIX)).toBe(true);
  return Buffer.from(file.data.slice(ZIP_DATA_URL_PREFIX.length), 'base64');
}

describe.each(testEngines())('TAK settings packages on $name', (engine) => {
  let portal: TestPortal;
  let databaseEnv: DatabaseEnv;
  let outDir: string;

  portalOnScratchDatabase(engine, async (env) => {
    databaseEnv = env;
    portal = await startTestPortal({ env: { ...env, ...TAK_ENV } });
    outDir = await mkdtemp(path.join(portal.workDir, 'zips-'));
    return portal;
  });

  async function memberToken(callsign: string): Promise<string> {
    const { jwt } = await portal.portal.tokens.issue({
      scope: 'member',
      subject: callsign,
      ttlMs: 60_000,
    });
    return jwt;
  }

  async function takCertificates(callsign: string) {
    return portal.portal.database.db
      .selectFrom('issued_certificates')
      .select(['serial', 'purpose', 'revoked_at'])
      .where('callsign', '=', callsign)
      .where('purpose', '=', 'tak-package')
      .execute();
  }

  /** Writes the zips of an answer to files and checks each with the acceptance script. */
  async function checkAll(answer: InstructionsResponse, callsign: string) {
    const outputs: string[] = [];
    const serials: string[] = [];
    for (const file of answer.files.tak) {
      const zipFile = path.join(outDir, `${engine.name}-${Date.now()}-${file.filename}`);
      const zip = zipOf(file);
      await writeFile(zipFile, zip);
      outputs.push(await checkPackage(zipFile, callsign));
      const keystore = path.join(outDir, `${callsign}-${Date.now()}.p12`);
      await writeFile(keystore, unzipSync(zip)[`${callsign}.p12`]!);
      const [leaf] = await certificatesIn(keystore, callsign, ['-clcerts']);
      serials.push(normalizeSerial(leaf!.serialNumber));
    }
    return { outputs, serials };
  }

  it('gives a member with a JWT three zips, Other, iOS, tracker, that pass the TAK package check', async () => {
    await portal.addMember('Eagle7');
    const before = await takCertificates('Eagle7');
    const response = await portal.api('public', 'GET', apiPaths.instructions, {
      bearer: await memberToken('Eagle7'),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const answer = instructionsResponseSchema.parse(response.json());
    expect(answer.files.tak.map((file) => [file.title, file.filename])).toEqual([
      ['Other', 'Eagle7_alpha_atak.zip'],
      ['iOS', 'Eagle7_alpha_itak.zip'],
      ['tracker', 'Eagle7_alpha_tak-tracker.zip'],
    ]);
    const { outputs, serials } = await checkAll(answer, 'Eagle7');
    console.log(`check-tak-package.sh, ${answer.files.tak[0]!.filename}:\n${outputs[0]!}`);

    // One fresh certificate, recorded for TAK, in all three zips.
    expect(new Set(serials).size).toBe(1);
    const after = await takCertificates('Eagle7');
    expect(after).toHaveLength(before.length + 1);
    const serial = serials[0]!;
    expect(await findCertificateBySerial(portal.portal.database.db, serial)).toMatchObject({
      callsign: 'Eagle7',
      purpose: 'tak-package',
      revokedAt: null,
    });

    // ATAK/WinTAK: the certificate keys belong to connection 0 only (docs/tak.md), so a renewed
    // package replaces the key of that connection; iTAK also gets its older root config.pref.
    const files = unzipSync(zipOf(answer.files.tak[0]!));
    const atakPref = strFromU8(files['server.pref']!);
    const entry = (group: string, key: string) =>
      xpathString(atakPref, `count(//preference[@name="${group}"]/entry[@key="${key}"])`) === '1'
        ? xpathString(atakPref, `//preference[@name="${group}"]/entry[@key="${key}"]`)
        : undefined;
    expect(entry('cot_streams', 'caLocation0')).toBe('cert/truststore-alpha.p12');
    expect(entry('cot_streams', 'caPassword0')).toBe(TRUST_PASSWORD);
    expect(entry('cot_streams', 'certificateLocation0')).toBe('cert/Eagle7.p12');
    expect(entry('cot_streams', 'clientPassword0')).toBe('Eagle7');
    for (const key of ['caLocation', 'caPassword', 'certificateLocation', 'clientPassword']) {
      expect(entry('com.atakmap.app_preferences', key)).toBeUndefined();
    }
    const itak = unzipSync(zipOf(answer.files.tak[1]!));
    expect(strFromU8(itak['config.pref']!)).toBe(strFromU8(itak['server.pref']!));
    expect(strFromU8(itak['server.pref']!)).toContain('key="certificateLocation"');

    // The truststore holds the portal's own CA chain by default.
    const truststore = path.join(outDir, `truststore-${engine.name}.p12`);
    await writeFile(truststore, files['truststore-alpha.p12']!);
    const trusted = await certificatesIn(truststore, TRUST_PASSWORD);
    const chain = [
      ...portal.portal.ca.chainPem.matchAll(
        /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g,
      ),
    ].map((match) => new X509Certificate(match[0]).fingerprint256);
    expect(trusted.map((certificate) => certificate.fingerprint256)).toEqual(chain);

    // The manifest uid is the same on the next call; the certificate is a new one.
    const again = instructionsResponseSchema.parse(
      (
        await portal.api('public', 'GET', apiPaths.instructions, {
          bearer: await memberToken('Eagle7'),
        })
      ).json(),
    );
    const uids = (reply: InstructionsResponse) =>
      reply.files.tak.map((file) => {
        const manifest = strFromU8(unzipSync(zipOf(file))['MANIFEST/manifest.xml']!);
        return /name="uid" value="([^"]+)"/.exec(manifest)?.[1];
      });
    expect(uids(again)).toEqual(uids(answer));
    expect(new Set(uids(answer)).size).toBe(3);
    expect(await takCertificates('Eagle7')).toHaveLength(before.length + 2);
    const next = await checkAll(again, 'Eagle7');
    expect(next.serials[0]).not.toBe(serial);
  });

  it('gives a member on the mTLS face, by their key, packages that pass the check', async () => {
    const key = await portal.addMember('Wolf3');
    const response = await portal.api('mtls', 'GET', apiPaths.instructions, { key });
    expect(response.status, response.text).toBe(200);
    const answer = instructionsResponseSchema.parse(response.json());
    expect(answer.files.tak.map((file) => file.filename)).toEqual([
      'Wolf3_alpha_atak.zip',
      'Wolf3_alpha_itak.zip',
      'Wolf3_alpha_tak-tracker.zip',
    ]);
    const { serials } = await checkAll(answer, 'Wolf3');
    expect(new Set(serials).size).toBe(1);
    // A new certificate for the packages, not the key the member signed in with.
    expect(serials[0]).not.toBe(key.serial);
    expect(await takCertificates('Wolf3')).toHaveLength(1);
  });

  it('refuses a revoked member with 403 and records no certificate', async () => {
    await portal.addMember('Gone9');
    const jwt = await memberToken('Gone9');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Gone9',
      actor: 'test',
      clientAddress: null,
    });
    const response = await portal.api('public', 'GET', apiPaths.instructions, { bearer: jwt });
    expect(response.status).toBe(403);
    expect(response.json()).toHaveProperty('detail');
    expect(await takCertificates('Gone9')).toHaveLength(0);
  });

  it('records no certificate when the member is revoked while their packages are being built', async () => {
    await portal.addMember('Race5');
    const { database, certificates, config, ca } = portal.portal;
    // The revocation lands between minting the key (outside the transaction) and recording it.
    const racingCa = Object.create(ca) as CertificateAuthority;
    racingCa.issueMemberCertificate = async (options) => {
      const issued = await ca.issueMemberCertificate(options);
      await revokeMember(database.db, certificates, {
        callsign: 'Race5',
        actor: 'test',
        clientAddress: null,
      });
      return issued;
    };
    const racing = new CertificateService(
      database.db,
      racingCa,
      {
        validityDays: config.certificateValidityDays,
        keyAlgorithm: config.keyAlgorithm,
        crlValidityDays: config.crlValidityDays,
      },
      { members: new Membership(database.db) },
    );
    const builder = new TakPackageService(
      racing,
      takSiteSettings(config),
      new PresetService(database.db, () => new Date()),
    );
    await expect(
      builder.build('Race5', { callsign: 'Race5', clientAddress: null }),
    ).rejects.toThrow(ForbiddenError);
    expect(await takCertificates('Race5')).toHaveLength(0);
  });

  it('refuses a pending enrollee with 403 and records no certificate', async () => {
    const jwt = await portal.addPendingEnrollee('Newbie', 'TAKCODE2');
    // The token does identify the enrollee; it is the approval that is missing.
    expect((await portal.api('public', 'GET', apiPaths.checkAuthAny, { bearer: jwt })).status).toBe(
      200,
    );
    const response = await portal.api('public', 'GET', apiPaths.instructions, { bearer: jwt });
    expect(response.status).toBe(403);
    expect(
      await portal.portal.database.db
        .selectFrom('issued_certificates')
        .select('serial')
        .where('callsign', '=', 'Newbie')
        .execute(),
    ).toHaveLength(0);
  });

  it('refuses a call without identity with 403', async () => {
    const response = await portal.api('public', 'GET', apiPaths.instructions);
    expect(response.status).toBe(403);
  });

  it('writes the same three packages with the CLI tak-packages command', async () => {
    expect(existsSync(CLI), 'build the server first (npm run build)').toBe(true);
    await portal.addMember('Hawk4');
    const out = path.join(outDir, `cli-${engine.name}`);
    const env = {
      ...process.env,
      ...databaseEnv,
      ...TAK_ENV,
      PORTAL_DATA_DIR: portal.dataDir,
      PORTAL_LOG_LEVEL: 'silent',
    };
    // The CLI takes the callsign in any case and writes the record's spelling.
    const result = await run('node', [CLI, 'tak-packages', 'hawk4', '--out', out], { env });
    expect(result.code, result.stderr).toBe(0);
    const names = ['Hawk4_alpha_atak.zip', 'Hawk4_alpha_itak.zip', 'Hawk4_alpha_tak-tracker.zip'];
    expect((await readdir(out)).sort()).toEqual([...names].sort());
    const serials = new Set<string>();
    for (const name of names) {
      const file = path.join(out, name);
      expect(result.stdout).toContain(file);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      await checkPackage(file, 'Hawk4');
      const keystore = path.join(outDir, `cli-${name}.p12`);
      await writeFile(keystore, unzipSync(await readFile(file))['Hawk4.p12']!);
      const [leaf] = await certificatesIn(keystore, 'Hawk4', ['-clcerts']);
      serials.add(normalizeSerial(leaf!.serialNumber));
    }
    expect(serials.size).toBe(1);
    expect((await takCertificates('Hawk4')).map((row) => row.serial)).toEqual([...serials]);

    await portal.addMember('Gone8');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Gone8',
      actor: 'test',
      clientAddress: null,
    });
    const revoked = await run('node', [CLI, 'tak-packages', 'Gone8', '--out', out], { env });
    expect(revoked.code).not.toBe(0);
    expect(revoked.stderr).toContain('no active member');
    const unknown = await run('node', [CLI, 'tak-packages', 'Nobody1', '--out', out], { env });
    expect(unknown.code).not.toBe(0);
  });
});
