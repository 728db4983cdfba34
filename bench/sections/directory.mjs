// Section directory: the LDAP publication (issue 29, docs/directory.md) against Debian's slapd
// (scripts/with-slapd.sh). 1,000 active members in 10 groups published from an empty subtree
// (the first sync after PORTAL_LDAP_* is set), then how long a change takes to be visible in
// the directory, measured from the call's start until an LDAP search (as TAK Server's account)
// sees it: a member's groups changed, a member revoked. SQLite, and PostgreSQL when run.sh
// started a server; in-process, a fresh slapd for each engine.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ldapts';
import { fmt, importServer, loadAverage, percentile, repoDir, table } from '../lib/common.mjs';
import { benchEngines, createPostgresDatabase } from '../lib/postgres.mjs';
import { activeCallsign, seed } from '../lib/seed.mjs';

const exec = promisify(execFile);
const SCRIPT = path.join(repoDir, 'scripts', 'with-slapd.sh');
const GROUPS = 10;

const MEMBERS = 1000;

/** @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context */
export async function directorySection({ quick, workDir, log }) {
  const changes = quick ? 20 : 100;
  /** @type {string[][]} */
  const rows = [];
  /** @type {Record<string, unknown>} */
  const results = {};
  for (const engine of benchEngines()) {
    const loadBefore = loadAverage();
    const measured = await measureOn(engine, { changes, workDir, log });
    const load = `${loadBefore} → ${loadAverage()}`;
    rows.push(...measured.rows.map((row) => [engine.name, ...row, load]));
    results[engine.name] = measured.results;
  }
  const markdown = [
    '## Directory (LDAP publication, issue 29)',
    '',
    `slapd from Debian on loopback (scripts/with-slapd.sh, a fresh one for each engine), ${MEMBERS} active members`,
    `in ${GROUPS} groups (two places each: ${MEMBERS} users, ${GROUPS * 2} group entries).`,
    `Changes through the services as the API makes them, ${changes} of each kind, one at a time;`,
    'visible = an LDAP search as TAK Server’s account sees it. Budget (architecture.md):',
    '1,000 members from empty under 10 s, a change in LDAP within 1 s (p99).',
    '',
    table(['engine', 'what', 'p50 (or time)', 'p99', 'max', 'load average'], rows),
    '',
  ].join('\n');
  return { markdown, results };
}

/**
 * One engine's measurements against a slapd of its own.
 * @param {{ name: string, url?: string }} engine
 * @param {{ changes: number, workDir: string, log: (line: string) => void }} context
 */
async function measureOn(engine, { changes, workDir, log }) {
  const members = MEMBERS;
  const slapdDir = path.join(workDir, `slapd-${engine.name}`);
  const { stdout } = await exec('bash', [SCRIPT, '--start', slapdDir]);
  const vars = Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const passwordFile = path.join(workDir, 'ldap-password');
  await writeFile(passwordFile, vars.PORTAL_TEST_LDAP_PORTAL_PASSWORD);
  const { loadConfig } = await importServer('config.js');
  const { openPortal } = await importServer('portal.js');
  const databaseUrl =
    engine.url === undefined
      ? undefined
      : await createPostgresDatabase(engine.url, `bench_directory_${process.pid}`);
  const config = loadConfig({
    PORTAL_DATA_DIR: path.join(workDir, `directory-portal-${engine.name}`),
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    PORTAL_LOG_LEVEL: 'silent',
    PORTAL_LDAP_URL: vars.PORTAL_TEST_LDAP_URL,
    PORTAL_LDAP_BIND_DN: vars.PORTAL_TEST_LDAP_PORTAL_DN,
    PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
    PORTAL_LDAP_BASE_DN: vars.PORTAL_TEST_LDAP_BASE_DN,
  });
  const portal = await openPortal(config, { migrate: true });
  const reader = new Client({ url: vars.PORTAL_TEST_LDAP_URL });
  await reader.bind(vars.PORTAL_TEST_LDAP_TAK_DN, vars.PORTAL_TEST_LDAP_TAK_PASSWORD);
  const users = `ou=users,${vars.PORTAL_TEST_LDAP_BASE_DN}`;
  const groupsDn = `ou=groups,${vars.PORTAL_TEST_LDAP_BASE_DN}`;
  try {
    log(
      `  directory (${engine.name}): ${members} members in ${GROUPS} groups, then ${changes} changes of each kind`,
    );
    await seed(portal.database.db, { active: members, pending: 0 });
    const actor = { callsign: 'bench', clientAddress: null };
    const { groups } = portal.services;
    for (let g = 0; g < GROUPS; g++)
      await groups.create(actor, { name: `Team${g}`, description: '' });
    // Each member in one group both ways and another receive-only, written straight in.
    await portal.database.db
      .insertInto('member_groups')
      .values(
        Array.from({ length: members }, (_, i) => [
          {
            callsign: activeCallsign(i + 1),
            group_name: `Team${i % GROUPS}`,
            direction: 'both',
            added_at: 0,
          },
          {
            callsign: activeCallsign(i + 1),
            group_name: `Team${(i + 1) % GROUPS}`,
            direction: 'out',
            added_at: 0,
          },
        ]).flat(),
      )
      .execute();
    const started = performance.now();
    const status = await portal.directory.syncNow();
    const fromEmpty = performance.now() - started;
    if (!status.inSync) throw new Error(`first sync failed: ${status.lastError}`);
    const root = new Client({ url: vars.PORTAL_TEST_LDAP_URL });
    await root.bind(vars.PORTAL_TEST_LDAP_ROOT_DN, vars.PORTAL_TEST_LDAP_ROOT_PASSWORD);
    const { searchEntries } = await root.search(users, { scope: 'one', attributes: ['1.1'] });
    await root.unbind();
    if (searchEntries.length !== members)
      throw new Error(`${searchEntries.length} users published`);
    const again = performance.now();
    await portal.directory.syncNow();
    const unchanged = performance.now() - again;

    /** @type {number[]} */
    const groupChange = [];
    /** @type {number[]} */
    const revocation = [];
    for (let i = 0; i < changes; i++) {
      const callsign = activeCallsign(i + 1);
      const wanted = `cn=tak_Team${(i + 5) % GROUPS}_WRITE,${groupsDn}`.toLowerCase();
      const begin = performance.now();
      await groups.setForMember(actor, callsign, [
        { name: `Team${(i + 5) % GROUPS}`, direction: 'in' },
      ]);
      for (;;) {
        const [entry] = (
          await reader.search(`cn=${callsign},${users}`, {
            scope: 'base',
            attributes: ['memberOf'],
          })
        ).searchEntries;
        const memberOf = [entry?.memberOf ?? []].flat().map((dn) => String(dn).toLowerCase());
        if (memberOf.length === 1 && memberOf[0] === wanted) break;
        if (performance.now() - begin > 10_000) throw new Error(`${callsign}'s change not seen`);
      }
      groupChange.push(performance.now() - begin);
    }
    for (let i = 0; i < changes; i++) {
      const callsign = activeCallsign(members - i);
      const begin = performance.now();
      await portal.services.memberCommands.revoke(actor, callsign);
      for (;;) {
        const found = await reader
          .search(`cn=${callsign},${users}`, { scope: 'base', attributes: ['1.1'] })
          .then(
            () => true,
            () => false,
          );
        if (!found) break;
        if (performance.now() - begin > 10_000) throw new Error(`${callsign} still published`);
      }
      revocation.push(performance.now() - begin);
    }
    const rows = [
      ['first sync, 1,000 members from an empty subtree', fmt(fromEmpty / 1000, 2) + ' s', '', ''],
      ['a sync with nothing to change (1,000 members)', fmt(unchanged, 0) + ' ms', '', ''],
      [
        "a member's groups changed → visible in LDAP",
        fmt(percentile(groupChange, 50), 0) + ' ms',
        fmt(percentile(groupChange, 99), 0) + ' ms',
        fmt(Math.max(...groupChange), 0) + ' ms',
      ],
      [
        'a member revoked → gone from LDAP',
        fmt(percentile(revocation, 50), 0) + ' ms',
        fmt(percentile(revocation, 99), 0) + ' ms',
        fmt(Math.max(...revocation), 0) + ' ms',
      ],
    ];
    return {
      rows,
      results: { fromEmptyMs: fromEmpty, unchangedMs: unchanged, groupChange, revocation },
    };
  } finally {
    await reader.unbind().catch(() => undefined);
    await portal.close();
    await exec('bash', [SCRIPT, '--stop', slapdDir]);
  }
}
