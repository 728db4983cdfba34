// Section 11: the admin's members table (issue 31, docs/api.md#the-members-table): a page of GET admin/members
// at 10,000 members, searched and sorted, on SQLite and PostgreSQL. Budget: p99 < 20 ms a page,
// search included (one client on a kept-alive connection).
import path from 'node:path';
import { fmt, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { sequentialClient } from '../lib/client.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const MEMBERS = 10_000;
const BUDGET_P99_MS = 20;

/**
 * The pages measured, each a query of GET admin/members; `deep`: page 41 of 50 rows of that query
 * (its `before` read first), so keyset paging is measured past the first page.
 * @type {{ name: string, query: Record<string, string>, deep?: boolean }[]}
 */
const PAGES = [
  { name: 'first page, by callsign', query: {} },
  { name: 'search "m0012" (callsign), by callsign', query: { q: 'm0012' } },
  {
    name: 'search "dark" (team), soonest key expiry',
    query: { q: 'dark', sort: 'key_expires_at' },
  },
  {
    name: 'search "medic" (role), longest unseen',
    query: { q: 'medic', sort: 'last_seen_tak_at' },
  },
  { name: 'no match ("zz9")', query: { q: 'zz9' } },
  { name: 'newest enrolled, page 41', query: { sort: '-enrolled_at' }, deep: true },
  { name: 'latest key expiry, page 41', query: { sort: '-key_expires_at' }, deep: true },
];

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function membersSection({ quick, workDir, log }) {
  const loadBefore = loadAverage();
  const reps = quick ? 50 : 400;
  /** @type {(string | number)[][]} */
  const rows = [];
  /** @type {Record<string, unknown>} */
  const results = {};
  const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;
  /** @type {('sqlite' | 'postgres')[]} */
  const engines = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  let met = true;
  for (const engine of engines) {
    log(`  members: ${MEMBERS} members on ${engine}`);
    const databaseUrl =
      engine === 'postgres' && postgresUrl
        ? await createPostgresDatabase(postgresUrl, `bench_members_${process.pid}`)
        : undefined;
    const portal = await startChild(portalScript, [
      JSON.stringify({
        dataDir: path.join(workDir, `members-${engine}`),
        databaseUrl,
        active: MEMBERS,
        pending: MEMBERS / 10,
        revokedShare: 0.1,
        memberDetails: true,
      }),
    ]);
    const { info } = portal;
    try {
      for (const { name, query, deep } of PAGES) {
        let before;
        // The first 2,000 rows in ten pages of 200: the cursor of page 41 of 50.
        for (let page = 0; deep && page < 10; page++) {
          const walk = sequentialClient(info, {
            face: 'mtls',
            path: `/api/v1/admin/members?${new URLSearchParams({ ...query, limit: '200', ...(before ? { before } : {}) })}`,
            key: info.admin,
          });
          const answer = await walk.get();
          walk.close();
          if (answer.status !== 200) throw new Error(`${name}: answered ${answer.status}`);
          before = JSON.parse(answer.body.toString()).next;
        }
        const search = new URLSearchParams({
          ...query,
          limit: '50',
          ...(before ? { before } : {}),
        });
        const client = sequentialClient(info, {
          face: 'mtls',
          path: `/api/v1/admin/members?${search}`,
          key: info.admin,
        });
        const first = await client.get();
        if (first.status !== 200) throw new Error(`${name} answered ${first.status}`);
        const shown = JSON.parse(first.body.toString()).members.length;
        const times = [];
        for (let i = 0; i < reps; i++) times.push((await client.get()).ms);
        client.close();
        const figure = {
          rows: shown,
          p50: percentile(times, 50),
          p99: percentile(times, 99),
          max: Math.max(...times),
        };
        if (figure.p99 >= BUDGET_P99_MS) met = false;
        results[`${engine} ${name}`] = figure;
        rows.push([
          engine,
          name,
          shown,
          fmt(figure.p50, 2),
          fmt(figure.p99, 2),
          fmt(figure.max, 1),
        ]);
      }
    } finally {
      await portal.stop();
    }
  }
  const loadAfter = loadAverage();
  const markdown = [
    '## 11. The members table (issue 31)',
    '',
    `Load average before: ${loadBefore}; after: ${loadAfter} (2 cores shared: a load above 2 inflates the tail). ${MEMBERS.toLocaleString('en')} active members (teams, roles, presence and key expiries varied; one key each, 10 % of them revoked) and ${(MEMBERS / 10).toLocaleString('en')} pending enrollees. GET admin/members, \`limit=50\`, one client on a kept-alive connection, ${reps} requests a page after one untimed; times in ms. Budget: p99 < ${BUDGET_P99_MS} ms: **${met ? 'met' : 'not met'}** in this run.${postgresUrl ? '' : ' PostgreSQL: only with a server from run.sh.'}`,
    '',
    table(['engine', 'page', 'rows', 'p50 ms', 'p99 ms', 'max ms'], rows),
    '',
  ].join('\n');
  return { markdown, results: { ...results, loadBefore, loadAfter, met } };
}
