import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  apiPaths,
  takEnrollmentTokenResponseSchema,
  takPaths,
  takReadinessResponseSchema,
} from '@callsign/contract';
import { keytoolList } from '../../src/ca/openssl-cli.testing.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

/**
 * What the iOS clients and phones get (issue 28, docs/tak.md#one-scan-enrollment-the-tak-enrollment-face; docs/tak.md#what-was-tried-and-what-was-not), behind the proxy: the
 * registration QR code as TAK Tracker's and TAKAware's parsers read it, iTAK's trust package,
 * and whether phones trust the enrollment face (PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED here, where
 * nginx holds the certificate) in the token answer and on the readiness card.
 */

/**
 * TAK Tracker's and TAKAware's `QRCodeParser.parse`, step by step (flighttactics/TAKAware
 * `TAKAware/Parsers/QRCodeParser.swift` at b11532bf; TAKTracker's is the same): a code that
 * Swift's `split(separator: ",")` (empty parts dropped) cuts into exactly four is iTAK's
 * `{name},{host},{port},{protocol}`; one starting with `{` is the JSON registration form, whose
 * `serverCredentials` and `userCredentials` must be `[String: String]`, the connection string
 * `{host}:{port}:…` with a whole-number port. Undefined where the apps say the code is invalid.
 */
function iosAppsParse(
  scanned: string,
): { host: string; port: string; username: string; password: string } | undefined {
  const code = scanned.trim();
  if (code.split(',').filter((part) => part !== '').length === 4) {
    const [, host = '', port = ''] = code.split(',').filter((part) => part !== '');
    return /^\d+$/.test(port) ? { host, port, username: '', password: '' } : undefined;
  }
  if (!code.startsWith('{')) return undefined;
  const json = JSON.parse(code) as Record<string, unknown>;
  const strings = (value: unknown): Record<string, string> | undefined =>
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((entry) => typeof entry === 'string')
      ? (value as Record<string, string>)
      : undefined;
  const server = strings(json.serverCredentials);
  const [host = '', port = ''] = (server?.connectionString ?? '').split(':');
  if (server === undefined || host === '' || !/^\d+$/.test(port)) return undefined;
  const user = strings(json.userCredentials);
  return { host, port, username: user?.username ?? '', password: user?.password ?? '' };
}

describe.each(testEngines())('TAK client forms on $name', (engine) => {
  let t: InjectPortal;
  portalOnScratchDatabase(
    engine,
    async (env) => (t = await openInjectPortal({ env: { ...env, TAK_PORT: '8090' } })),
  );

  it('the token answer carries a registration QR code the iOS apps read with host, port, callsign and token', async () => {
    const member = await t.addMember('Reg1');
    const response = await t.api('mtls', 'POST', takPaths.enrollmentToken, { key: member });
    expect(response.status, response.text).toBe(200);
    const answer = takEnrollmentTokenResponseSchema.parse(response.json());
    expect(JSON.parse(answer.registration_qr)).toEqual({
      passphrase: 'false',
      type: 'registration',
      serverCredentials: { connectionString: `${t.config.takHost}:8090:ssl` },
      userCredentials: { username: 'Reg1', password: answer.token },
    });
    expect(iosAppsParse(answer.registration_qr)).toEqual({
      host: t.config.takHost,
      port: '8090',
      username: 'Reg1',
      password: answer.token,
    });
    // Why `passphrase` is there: the same code without it has exactly three commas, and the
    // apps take it for iTAK's four-part code (and then find no port in it).
    const withoutPassphrase = JSON.parse(answer.registration_qr) as Record<string, unknown>;
    delete withoutPassphrase.passphrase;
    const bare = await t.addMember('Bare1');
    const bareAnswer = takEnrollmentTokenResponseSchema.parse(
      (await t.api('mtls', 'POST', takPaths.enrollmentToken, { key: bare })).json(),
    );
    const bareCode = JSON.stringify({
      ...withoutPassphrase,
      userCredentials: { username: 'Bare1', password: bareAnswer.token },
    });
    expect(iosAppsParse(bareCode)).toBeUndefined();
    expect(iosAppsParse(bareAnswer.registration_qr)?.username).toBe('Bare1');
  });

  it('phones need the trust package behind the proxy unless PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED says so', async () => {
    const member = await t.addMember('Trusty1');
    const answer = takEnrollmentTokenResponseSchema.parse(
      (await t.api('mtls', 'POST', takPaths.enrollmentToken, { key: member })).json(),
    );
    expect(answer.trusted_by_phones).toBe(false);
    const admin = await t.addMember('Ready28', { roles: ['admin'] });
    const readiness = takReadinessResponseSchema.parse(
      (await t.api('mtls', 'GET', apiPaths.takReadiness, { key: admin })).json(),
    );
    expect(readiness.enrollment).toEqual({
      host: t.config.takHost,
      port: 8446,
      trusted_by_phones: false,
      trust_basis: 'setting',
      root: null,
      chain_end: null,
      warnings: ['phones-need-trust-package'],
    });
  });

  it('iTAK’s trust package: unsuffixed keys, a root config.pref, a truststore keytool lists, no key', async () => {
    const member = await t.addMember('Itak1');
    const response = await t.api('mtls', 'GET', `${takPaths.trustPackage}?client=itak`, {
      key: member,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="Itak1_${t.config.deployment}_trust_itak.zip"`,
    );
    const entries = unzipSync(new Uint8Array(response.body));
    const truststoreName = `truststore-${t.config.deployment}.p12`;
    expect(Object.keys(entries).sort()).toEqual(
      ['MANIFEST/manifest.xml', 'config.pref', 'server.pref', truststoreName].sort(),
    );
    const manifest = strFromU8(entries['MANIFEST/manifest.xml'] ?? new Uint8Array());
    for (const name of ['config.pref', 'server.pref', truststoreName]) {
      expect(manifest).toContain(`<Content ignore="false" zipEntry="${name}"/>`);
    }
    const pref = strFromU8(entries['server.pref'] ?? new Uint8Array());
    expect(strFromU8(entries['config.pref'] ?? new Uint8Array())).toBe(pref);
    const value = (key: string) =>
      new RegExp(`<entry key="${key}" class="class java\\.lang\\.\\w+">([^<]*)</entry>`).exec(
        pref,
      )?.[1];
    // The unsuffixed keys iTAK reads, in com.atakmap.app_preferences, beside connection 0's.
    const appGroup = /name="com\.atakmap\.app_preferences">([\s\S]*?)<\/preference>/.exec(
      pref,
    )?.[1];
    expect(appGroup).toContain(
      `<entry key="caLocation" class="class java.lang.String">cert/${truststoreName}</entry>`,
    );
    expect(appGroup).toContain(
      `<entry key="caPassword" class="class java.lang.String">${t.config.takTruststorePassword}</entry>`,
    );
    expect(value('caLocation0')).toBe(`cert/${truststoreName}`);
    expect(value('connectString0')).toBe(`${t.config.takHost}:8090:ssl`);
    expect(value('enrollForCertificateWithTrust0')).toBe('true');
    expect(value('useAuth0')).toBe('true');
    expect(value('username0')).toBe('Itak1');
    expect(pref).not.toContain('certificateLocation');
    expect(pref).not.toContain('clientPassword');

    const dir = path.join(t.workDir, 'itak-trust');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, truststoreName);
    await writeFile(file, entries[truststoreName] ?? new Uint8Array());
    const listed = await keytoolList(file, t.config.takTruststorePassword);
    expect(listed).toContain('Your keystore contains 2 entries');
    expect(listed.match(/trustedCertEntry/g)).toHaveLength(2);
    expect(listed).not.toContain('PrivateKeyEntry');
    for (const [name, data] of Object.entries(entries)) {
      expect(Buffer.from(data).toString('latin1'), name).not.toContain('PRIVATE KEY');
    }
  });

  it('the default trust package stays ATAK’s: no unsuffixed keys, no config.pref', async () => {
    const member = await t.addMember('Atak28');
    for (const query of ['', '?client=atak']) {
      const response = await t.api('mtls', 'GET', `${takPaths.trustPackage}${query}`, {
        key: member,
      });
      expect(response.status, response.text).toBe(200);
      const entries = unzipSync(new Uint8Array(response.body));
      expect(Object.keys(entries)).not.toContain('config.pref');
      const pref = strFromU8(entries['server.pref'] ?? new Uint8Array());
      expect(pref).toContain('key="caLocation0"');
      expect(pref).not.toContain('key="caLocation"');
      expect(pref).not.toContain('key="caPassword"');
    }
  });

  it('refuses another client with 422 and changes nothing', async () => {
    const member = await t.addMember('Wintak1');
    const before = await snapshotTables(t.portal.database.db);
    const response = await t.api('mtls', 'GET', `${takPaths.trustPackage}?client=wintak`, {
      key: member,
    });
    expect(response.status).toBe(422);
    expect(response.text).toMatch(/client/);
    expect(await snapshotTables(t.portal.database.db)).toEqual(before);
  });
});

describe('TAK enrollment behind the proxy with PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED=true', () => {
  let t: InjectPortal;
  portalOnScratchDatabase(
    testEngines()[0]!,
    async (env) =>
      (t = await openInjectPortal({
        env: {
          ...env,
          PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: 'true',
          PORTAL_TAK_ENROLL_PUBLIC_PORT: '443',
        },
      })),
  );

  it('tells phones they trust it, and warns about a public port other than 8446', async () => {
    const member = await t.addMember('Public1');
    const answer = takEnrollmentTokenResponseSchema.parse(
      (await t.api('mtls', 'POST', takPaths.enrollmentToken, { key: member })).json(),
    );
    expect(answer.trusted_by_phones).toBe(true);
    expect(answer.port).toBe(443);
    const admin = await t.addMember('Ready29', { roles: ['admin'] });
    const readiness = takReadinessResponseSchema.parse(
      (await t.api('mtls', 'GET', apiPaths.takReadiness, { key: admin })).json(),
    );
    expect(readiness.enrollment).toMatchObject({
      port: 443,
      trusted_by_phones: true,
      trust_basis: 'setting',
      warnings: ['port-not-8446'],
    });
  });
});
