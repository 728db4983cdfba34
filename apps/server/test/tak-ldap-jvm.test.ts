import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { openInjectPortal, type InjectPortal } from './support/inject-portal.js';
import type { MemberKey } from './support/member-fixtures.js';
import { run } from './support/processes.js';
import { startSlapd, type SlapdDirectory } from './support/slapd.js';

// TAK Server's own LDAP lookup for an x509 client (jvm/TakLdapLookup.java: bind as the service
// account, find the user by the certificate's CN, read memberOf, split IN/OUT) against the
// directory the portal publishes (Debian's slapd), with the <ldap> settings docs/tak.md gives.

const LOOKUP = fileURLToPath(new URL('./jvm/TakLdapLookup.java', import.meta.url));
/** docs/tak.md's <ldap groupprefix> and groupNameExtractorRegex for the default tak_ prefix. */
const GROUP_PREFIX = 'cn=tak_';
const EXTRACTOR = 'cn=tak_(.*?)(?:,|$)';

let slapd: SlapdDirectory;
let portal: InjectPortal;
let admin: MemberKey;
let scout: MemberKey;

async function takGroupsOf(key: MemberKey): Promise<string[]> {
  const certFile = path.join(portal.workDir, `${key.callsign}-cert.pem`);
  await writeFile(certFile, key.certificatePem);
  const result = await run(
    'java',
    [
      LOOKUP,
      slapd.url,
      slapd.takDn,
      slapd.takPassword,
      `cn={username},ou=users,${slapd.baseDn}`,
      GROUP_PREFIX,
      EXTRACTOR,
      certFile,
    ],
    { timeout: 120_000 },
  );
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

beforeAll(async () => {
  const java = await run('sh', ['-c', 'command -v java']);
  expect(java.code, 'install a JRE: apt-get install default-jre-headless').toBe(0);
  slapd = await startSlapd();
  portal = await openInjectPortal({
    env: {
      PORTAL_LDAP_URL: slapd.url,
      PORTAL_LDAP_BIND_DN: slapd.portalDn,
      PORTAL_LDAP_BIND_PASSWORD_FILE: await (async () => {
        const file = path.join(slapd.dataDir, 'portal-password');
        await writeFile(file, slapd.portalPassword, { mode: 0o600 });
        return file;
      })(),
      PORTAL_LDAP_BASE_DN: slapd.baseDn,
    },
    directorySync: { periodMs: 60_000, retryMs: 100, maxRetryMs: 300 },
  });
  admin = await portal.addMember('Chief1', { roles: ['admin'] });
  scout = await portal.addMember('Scout1');
});

afterAll(async () => {
  await portal.destroy();
  await slapd.destroy();
});

const asAdmin = (method: string, urlPath: string, json?: unknown) =>
  portal.api('mtls', method, urlPath, { key: admin, ...(json === undefined ? {} : { json }) });

describe("TAK Server's LDAP lookup of an x509 client", () => {
  it("finds the member by the certificate's CN and reads their groups with the IN/OUT split", async () => {
    for (const name of ['Red', 'Blue', 'HQ Net']) {
      expect((await asAdmin('POST', apiPaths.groups, { name })).status).toBe(200);
    }
    const put = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [
        { name: 'Red' },
        { name: 'Blue', direction: 'out' },
        { name: 'HQ Net', direction: 'in' },
      ],
    });
    expect(put.status, put.text).toBe(200);
    await portal.portal.directory?.syncNow();
    expect(await takGroupsOf(scout)).toEqual(['Blue OUT', 'HQ Net IN', 'Red IN', 'Red OUT']);
    // The admins group is no TAK group: it does not carry the prefix TAK Server filters on.
    expect(await takGroupsOf(admin)).toEqual([]);
  });

  it("sees a group change on the next lookup, and a revoked member's groups come back empty", async () => {
    expect(
      (await asAdmin('PUT', apiPaths.personGroups('Scout1'), { groups: [{ name: 'Red' }] })).status,
    ).toBe(200);
    await portal.portal.directory?.syncNow();
    expect(await takGroupsOf(scout)).toEqual(['Red IN', 'Red OUT']);
    expect((await asAdmin('DELETE', apiPaths.person('Scout1'))).status).toBe(200);
    await portal.portal.directory?.syncNow();
    expect(await takGroupsOf(scout)).toEqual([]);
  });
});
