import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'ldapts';
import { apiPaths, directoryStatusResponseSchema } from '@callsign/contract';
import { testEngines } from '../src/db/test-engines.testing.js';
import { openInjectPortal, type InjectPortal } from './support/inject-portal.js';
import type { MemberKey } from './support/member-fixtures.js';
import { portalOnScratchDatabase } from './support/portal-on-engine.js';
import { Scrape } from './support/prometheus-text.js';
import { startSlapd, type SlapdDirectory } from './support/slapd.js';

/**
 * Publication to a real directory (docs/directory.md): Debian's slapd, started
 * by scripts/with-slapd.sh, on both engines. Members and groups appear as TAK Server's LDAP
 * authenticator reads them (memberOf, the _READ/_WRITE suffixes, the admins group); a change
 * and a revocation reach it within a second; with the directory stopped, changes wait and are
 * all written once it is back; entries outside the portal's subtree are never touched.
 */

const SECOND = 1000;

async function within<T>(
  ms: number,
  probe: () => Promise<T | undefined>,
): Promise<{ value: T; elapsed: number }> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    const elapsed = performance.now() - started;
    if (value !== undefined) return { value, elapsed };
    if (elapsed > ms) throw new Error(`not seen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function values(entry: Record<string, unknown> | undefined, attribute: string): string[] {
  const value = entry?.[attribute];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String).sort();
}

/** A portal in process publishing to `slapd` as `bind` (its password put in a file). */
async function publishingTo(
  slapd: SlapdDirectory,
  env: Record<string, string>,
  bind: { dn: string; password: string; file: string },
): Promise<InjectPortal> {
  const passwordFile = path.join(os.tmpdir(), `${bind.file}-${process.pid}`);
  await writeFile(passwordFile, bind.password, { mode: 0o600 });
  return openInjectPortal({
    env: {
      ...env,
      PORTAL_LDAP_URL: slapd.url,
      PORTAL_LDAP_BIND_DN: bind.dn,
      PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
      PORTAL_LDAP_BASE_DN: slapd.baseDn,
    },
    directorySync: { periodMs: 60 * SECOND, retryMs: 100, maxRetryMs: 300 },
  });
}

describe.each(testEngines())('the LDAP directory on $name', (engine) => {
  let slapd: SlapdDirectory;
  let portal: InjectPortal;
  let admin: MemberKey;
  let users: string;
  let groups: string;
  const userDn = (callsign: string) => `cn=${callsign},${users}`;

  beforeAll(async () => {
    slapd = await startSlapd();
    users = `ou=users,${slapd.baseDn}`;
    groups = `ou=groups,${slapd.baseDn}`;
  });
  afterAll(async () => {
    await slapd.destroy();
  });

  portalOnScratchDatabase(engine, async (env) => {
    // Bound as the directory's root, which may write anywhere: that nothing outside the subtree
    // changes is then the portal's doing, not the server's access rules.
    portal = await publishingTo(slapd, env, {
      dn: slapd.rootDn,
      password: slapd.rootPassword,
      file: `ldap-root-${engine.name}`,
    });
    return portal;
  });

  const asAdmin = (method: string, urlPath: string, json?: unknown) =>
    portal.api('mtls', method, urlPath, { key: admin, ...(json === undefined ? {} : { json }) });

  const userEntry = async (callsign: string) =>
    (
      await slapd
        .search(userDn(callsign), { scope: 'base', attributes: ['cn', 'memberOf'] })
        .catch(() => [])
    )[0];

  it('publishes members, groups with TAK Server’s IN/OUT reading, and the admins group', async () => {
    admin = await portal.addMember('Chief1', { roles: ['admin'] });
    await portal.addMember('Scout1');
    await portal.addMember('Scout2');
    for (const name of ['Red', 'Blue', 'HQ']) {
      expect((await asAdmin('POST', apiPaths.groups, { name })).status).toBe(200);
    }
    const put = await asAdmin('PUT', apiPaths.personGroups('Scout1'), {
      groups: [
        { name: 'Red' },
        { name: 'Blue', direction: 'out' },
        { name: 'HQ', direction: 'in' },
      ],
    });
    expect(put.status, put.text).toBe(200);
    await portal.portal.directory?.syncNow();

    const userCns = (await slapd.search(users, { scope: 'one' })).map((e) => String(e.cn)).sort();
    expect(userCns).toEqual(['Chief1', 'Scout1', 'Scout2']);
    const groupEntries = await slapd.search(groups, { scope: 'one' });
    expect(
      Object.fromEntries(groupEntries.map((entry) => [String(entry.cn), values(entry, 'member')])),
    ).toEqual({
      admins: [userDn('Chief1')],
      tak_Red: [userDn('Scout1')],
      tak_Blue_READ: [userDn('Scout1')],
      tak_HQ_WRITE: [userDn('Scout1')],
    });
    // What TAK Server's authenticator reads (DS style): the user entry's memberOf, as its service
    // account.
    const [seenByTak] = await slapd.search(
      userDn('Scout1'),
      { scope: 'base', attributes: ['memberOf'] },
      { dn: slapd.takDn, password: slapd.takPassword },
    );
    expect(values(seenByTak, 'memberOf')).toEqual(
      [`cn=tak_Blue_READ,${groups}`, `cn=tak_HQ_WRITE,${groups}`, `cn=tak_Red,${groups}`].sort(),
    );
    const status = directoryStatusResponseSchema.parse(
      (await asAdmin('GET', apiPaths.directory)).json(),
    );
    expect(status).toMatchObject({ configured: true, in_sync: true, pending: 0, last_error: null });
  });

  it('shows a group change and a revocation in the directory within a second', async () => {
    const put = await asAdmin('PUT', apiPaths.personGroups('Scout2'), {
      groups: [{ name: 'Red' }],
    });
    expect(put.status).toBe(200);
    const change = await within(SECOND, async () => {
      const entry = await userEntry('Scout2');
      return values(entry, 'memberOf').includes(`cn=tak_Red,${groups}`) ? entry : undefined;
    });
    expect(change.elapsed).toBeLessThan(SECOND);

    const revoked = await asAdmin('DELETE', apiPaths.person('Scout1'));
    expect(revoked.status, revoked.text).toBe(200);
    const gone = await within(SECOND, async () =>
      (await userEntry('Scout1')) === undefined ? true : undefined,
    );
    expect(gone.elapsed).toBeLessThan(SECOND);
    // Out of every group with it; a group left without members is gone.
    const groupEntries = await slapd.search(groups, { scope: 'one' });
    expect(groupEntries.map((entry) => String(entry.cn)).sort()).toEqual(['admins', 'tak_Red']);
    expect(
      values(
        groupEntries.find((e) => e.cn === 'tak_Red'),
        'member',
      ),
    ).toEqual([userDn('Scout2')]);
  });

  it('catches up with everything that changed while the directory was down', async () => {
    await portal.addMember('Scout3');
    await slapd.stop();
    expect(
      (
        await asAdmin('PUT', apiPaths.personGroups('Scout3'), {
          groups: [{ name: 'Blue', direction: 'in' }],
        })
      ).status,
    ).toBe(200);
    expect((await asAdmin('DELETE', apiPaths.person('Scout2'))).status).toBe(200);
    expect((await asAdmin('POST', apiPaths.promote, { callsign: 'Scout3' })).status).toBe(200);
    const down = await within(5 * SECOND, async () => {
      const status = directoryStatusResponseSchema.parse(
        (await asAdmin('GET', apiPaths.directory)).json(),
      );
      return status.last_error === null ? undefined : status;
    });
    expect(down.value).toMatchObject({ in_sync: false, pending: 3 });
    expect(down.value.last_error).toMatch(/Cannot reach the directory/);
    const metrics = await Scrape.parse(await portal.portal.metrics.text());
    expect(metrics.value('callsign_portal_ldap_in_sync')).toBe(0);
    expect(metrics.value('callsign_portal_ldap_pending_changes')).toBe(3);

    await slapd.start();
    await within(5 * SECOND, () =>
      Promise.resolve(portal.portal.directory?.status().inSync === true ? true : undefined),
    );
    expect(portal.portal.directory?.status()).toMatchObject({ inSync: true, pending: 0 });
    expect(await userEntry('Scout2')).toBeUndefined();
    expect(values(await userEntry('Scout3'), 'memberOf')).toEqual(
      [`cn=admins,${groups}`, `cn=tak_Blue_WRITE,${groups}`].sort(),
    );
    const after = await Scrape.parse(await portal.portal.metrics.text());
    expect(after.value('callsign_portal_ldap_in_sync')).toBe(1);
    expect(after.value('callsign_portal_ldap_pending_changes')).toBe(0);
    expect(after.value('callsign_portal_ldap_last_sync_timestamp_seconds')).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
  });

  it('removes strangers from its own subtree and never touches entries outside it', async () => {
    const outsider = `cn=Outsider,ou=other,${slapd.suffix}`;
    const before = await slapd.search(outsider, {
      scope: 'base',
      attributes: ['*', 'modifyTimestamp', 'entryCSN'],
    });
    const client = new Client({ url: slapd.url });
    await client.bind(slapd.rootDn, slapd.rootPassword);
    await client.add(`cn=Stranger,${users}`, {
      objectClass: 'inetOrgPerson',
      cn: 'Stranger',
      sn: 'Stranger',
    });
    await client.unbind();
    await portal.portal.directory?.syncNow();
    expect(await userEntry('Stranger')).toBeUndefined();
    expect(
      await slapd.search(outsider, {
        scope: 'base',
        attributes: ['*', 'modifyTimestamp', 'entryCSN'],
      }),
    ).toEqual(before);
    expect((await slapd.search(`ou=other,${slapd.suffix}`, { scope: 'one' })).length).toBe(1);
  });
});

describe.each(testEngines())('groups LDAP sees as one, and a refused entry, on $name', (engine) => {
  let slapd: SlapdDirectory;
  let portal: InjectPortal;
  let groups: string;

  beforeAll(async () => {
    slapd = await startSlapd();
    groups = `ou=groups,${slapd.baseDn}`;
  });
  afterAll(async () => {
    await slapd.destroy();
  });

  portalOnScratchDatabase(engine, async (env) => {
    portal = await publishingTo(slapd, env, {
      dn: slapd.portalDn,
      password: slapd.portalPassword,
      file: `ldap-same-${engine.name}`,
    });
    return portal;
  });

  const groupMembers = async () =>
    Object.fromEntries(
      (await slapd.search(groups, { scope: 'one' })).map((entry) => [
        String(entry.cn),
        values(entry, 'member'),
      ]),
    );

  it('a database holding two groups LDAP sees as one: the pair is held and named, a revoked admin still leaves cn=admins', async () => {
    const chief = await portal.addMember('Chief1', { roles: ['admin'] });
    await portal.addMember('Chief2', { roles: ['admin'] });
    await portal.addMember('Scout1');
    await portal.portal.directory?.syncNow();
    const userDn = (callsign: string) => `cn=${callsign},ou=users,${slapd.baseDn}`;
    expect((await groupMembers()).admins).toEqual([userDn('Chief1'), userDn('Chief2')].sort());
    const { db } = portal.portal.database;
    const at = Date.now();
    // Made before names were compared as LDAP does (docs/directory.md): two rows, one cn to LDAP.
    await db
      .insertInto('groups')
      .values(
        ['ops', 'ops ', 'Red'].map((name) => ({ name, created_at: at, created_by: 'Chief1' })),
      )
      .execute();
    await db
      .insertInto('member_groups')
      .values(
        ['ops', 'ops ', 'Red'].map((group_name) => ({
          callsign: 'Scout1',
          group_name,
          added_at: at,
        })),
      )
      .execute();
    const revoked = await portal.api('mtls', 'DELETE', apiPaths.person('Chief2'), { key: chief });
    expect(revoked.status, revoked.text).toBe(200);
    await portal.portal.directory?.syncNow();
    const published = await groupMembers();
    expect(published.admins).toEqual([userDn('Chief1')]);
    expect(published.tak_Red).toEqual([userDn('Scout1')]);
    expect(await slapd.search(userDn('Chief2'), { scope: 'base' }).catch(() => 'gone')).toEqual(
      'gone',
    );

    const status = directoryStatusResponseSchema.parse(
      (await portal.api('mtls', 'GET', apiPaths.directory, { key: chief })).json(),
    );
    expect(status.in_sync).toBe(false);
    expect(status.entry_errors).toEqual([
      {
        dn: `cn=tak_ops,${groups}`,
        error:
          'The groups "ops" and "ops " are one group to LDAP (it compares names in any case, spaces at the ends dropped and runs of spaces as one): their entries are left as they are until one of them is deleted',
      },
    ]);
    expect(status.last_error).toMatch(/^1 entry not written: cn=tak_ops,/);
  });

  it('an entry the directory refuses is named, and every other change is still written', async () => {
    // A child under a stranger's entry: slapd refuses to delete the stranger (not a leaf).
    const client = new Client({ url: slapd.url });
    await client.bind(slapd.rootDn, slapd.rootPassword);
    const stranger = `cn=Stranger,ou=users,${slapd.baseDn}`;
    await client.add(stranger, { objectClass: 'inetOrgPerson', cn: 'Stranger', sn: 'Stranger' });
    await client.add(`cn=Child,${stranger}`, {
      objectClass: 'inetOrgPerson',
      cn: 'Child',
      sn: 'Child',
    });
    await client.unbind();
    await portal.addMember('Scout2');
    const status = await portal.portal.directory?.syncNow();
    expect(status?.inSync).toBe(false);
    expect(status?.entryErrors.map((failure) => failure.dn)).toEqual([
      stranger,
      `cn=tak_ops,${groups}`,
    ]);
    expect(status?.entryErrors[0]?.error).toMatch(/not allowed on non-leaf|subordinate/i);
    expect(
      await slapd.search(`cn=Scout2,ou=users,${slapd.baseDn}`, { scope: 'base' }),
    ).toHaveLength(1);
  });
});

describe('a directory the portal cannot use', () => {
  let slapd: SlapdDirectory;
  beforeAll(async () => {
    slapd = await startSlapd();
  });
  afterAll(async () => {
    await slapd.destroy();
  });

  it.each([
    ['a wrong bind password', { password: 'wrong' }, /refused the bind as cn=portal/],
    [
      'a base DN that does not exist',
      { baseDn: 'ou=missing,dc=unit,dc=example' },
      /base DN ou=missing,dc=unit,dc=example \(PORTAL_LDAP_BASE_DN\) does not exist/,
    ],
    [
      'an unreachable URL',
      { url: 'ldap://127.0.0.1:1' },
      /Cannot reach the directory at ldap:\/\/127\.0\.0\.1:1/,
    ],
  ] as const)('shows %s as its state, and the portal keeps serving', async (_name, bad, reason) => {
    const dir = os.tmpdir();
    const passwordFile = path.join(dir, `ldap-bad-${process.pid}-${Math.random()}`);
    const overrides = bad as { password?: string; baseDn?: string; url?: string };
    await writeFile(passwordFile, overrides.password ?? slapd.portalPassword, { mode: 0o600 });
    const portal = await openInjectPortal({
      env: {
        PORTAL_LDAP_URL: overrides.url ?? slapd.url,
        PORTAL_LDAP_BIND_DN: slapd.portalDn,
        PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
        PORTAL_LDAP_BASE_DN: overrides.baseDn ?? slapd.baseDn,
      },
      directorySync: { periodMs: 60 * SECOND, retryMs: 100, maxRetryMs: 300 },
    });
    try {
      const admin = await portal.addMember('Chief1', { roles: ['admin'] });
      const status = await within(5 * SECOND, async () => {
        const answer = directoryStatusResponseSchema.parse(
          (await portal.api('mtls', 'GET', apiPaths.directory, { key: admin })).json(),
        );
        return answer.last_error === null ? undefined : answer;
      });
      expect(status.value.in_sync).toBe(false);
      expect(status.value.last_error).toMatch(reason);
      expect((await portal.api('public', 'GET', apiPaths.healthcheck)).status).toBe(200);
    } finally {
      await portal.destroy();
    }
  });

  it("publishes with the least-privileged account, past the server's size limit of 500 entries", async () => {
    const passwordFile = path.join(os.tmpdir(), `ldap-portal-${process.pid}`);
    await writeFile(passwordFile, slapd.portalPassword, { mode: 0o600 });
    const portal = await openInjectPortal({
      env: {
        PORTAL_LDAP_URL: slapd.url,
        PORTAL_LDAP_BIND_DN: slapd.portalDn,
        PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
        PORTAL_LDAP_BASE_DN: slapd.baseDn,
      },
    });
    try {
      const at = Date.now();
      const callsigns = Array.from({ length: 600 }, (_, i) => `Many${String(i).padStart(3, '0')}`);
      await portal.portal.database.db
        .insertInto('members')
        .values(
          callsigns.map((callsign) => ({
            callsign,
            status: 'active' as const,
            invite_code: null,
            created_at: at,
            updated_at: at,
            revoked_at: null,
          })),
        )
        .execute();
      const first = await portal.portal.directory?.syncNow();
      expect(first, JSON.stringify(first)).toMatchObject({ inSync: true });
      // The next sync reads all 600 back (as the portal's account, which the size limit binds).
      await portal.portal.database.db
        .updateTable('members')
        .set({ status: 'revoked', revoked_at: at })
        .where('callsign', '=', 'Many000')
        .execute();
      const status = await portal.portal.directory?.syncNow();
      expect(status, JSON.stringify(status)).toMatchObject({
        inSync: true,
        lastChanges: { added: 0, modified: 0, deleted: 1 },
      });
      const published = await slapd.search(`ou=users,${slapd.baseDn}`, { scope: 'one' });
      expect(published).toHaveLength(599);
    } finally {
      await portal.destroy();
    }
  });
});
