// Section bulk: bulk onboarding. An admin's largest bulk request, 500 callsigns at once (the most
// one request takes), timed end to end over TLS: the preview's check of the list, the creation
// of 500 single-use slips in one transaction, and the batch page's status of all 500. SQLite, and
// PostgreSQL too when run.sh started one.
import path from 'node:path';
import { fmt, kb, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { requestOnce } from '../lib/client.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const CALLSIGNS = 500;
const API = '/api/v1/enrollment/bulk';

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function bulkSection({ quick, workDir, log }) {
  const loadBefore = loadAverage();
  const rounds = quick ? 2 : 7;
  // Members already there, so that the taken-callsign checks look through a real table.
  const members = quick ? 1000 : 10_000;
  /** @type {(string | number)[][]} */
  const rows = [];
  /** @type {Record<string, unknown>} */
  const results = {};
  const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;
  /** @type {('sqlite' | 'postgres')[]} */
  const engines = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) {
    log(`  bulk: ${CALLSIGNS} callsigns a request on ${engine}, ${members} members`);
    const databaseUrl =
      engine === 'postgres' && postgresUrl
        ? await createPostgresDatabase(postgresUrl, `bench_bulk_${process.pid}`)
        : undefined;
    const portal = await startChild(portalScript, [
      JSON.stringify({
        dataDir: path.join(workDir, `bulk-${engine}`),
        databaseUrl,
        active: members,
        pending: members / 10,
      }),
    ]);
    const { info } = portal;
    try {
      /** @type {Record<'check' | 'create' | 'status', number[]>} */
      const times = { check: [], create: [], status: [] };
      const bytes = { create: 0, status: 0 };
      for (let round = 0; round < rounds; round++) {
        // Fresh callsigns each round: a created batch reserves its callsigns.
        const callsigns = Array.from(
          { length: CALLSIGNS },
          (_, index) => `Unit${round}x${String(index).padStart(3, '0')}`,
        );
        const as = (/** @type {string} */ urlPath, /** @type {unknown} */ json) =>
          requestOnce(info, {
            face: 'mtls',
            path: urlPath,
            key: info.admin,
            ...(json === undefined ? {} : { json }),
          });
        const check = await as(`${API}/check`, { callsigns });
        if (check.status !== 200) throw new Error(`bulk/check answered ${check.status}`);
        const create = await as(API, {
          callsigns,
          team: 'Dark Blue',
          role: 'Medic',
          valid_hours: 72,
        });
        if (create.status !== 200) {
          throw new Error(`bulk answered ${create.status}: ${create.body.toString()}`);
        }
        const made = JSON.parse(create.body.toString());
        if (made.slips.length !== CALLSIGNS) throw new Error(`${made.slips.length} slips made`);
        const status = await as(`${API}/${encodeURIComponent(made.batch_id)}`);
        if (status.status !== 200) throw new Error(`bulk status answered ${status.status}`);
        times.check.push(check.ms);
        times.create.push(create.ms);
        times.status.push(status.ms);
        bytes.create = create.bytes;
        bytes.status = status.bytes;
      }
      const cell = (/** @type {number[]} */ values) =>
        `${fmt(percentile(values, 50))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
      results[engine] = { times, bytes };
      rows.push([
        engine,
        members,
        cell(times.check),
        cell(times.create),
        kb(bytes.create),
        cell(times.status),
        kb(bytes.status),
      ]);
    } finally {
      await portal.stop();
    }
  }
  const loadAfter = loadAverage();
  const markdown = [
    '## Bulk onboarding: 500 callsigns in one request',
    '',
    `Load average before: ${loadBefore}; after: ${loadAfter}. ${CALLSIGNS} new callsigns per request (the most one takes), an admin's key on the mTLS face, a new TLS connection per request (as the admin's browser after a pause); ${rounds} rounds, each with its own callsigns, times in ms: median (fastest–slowest). "check" is the preview's question (invalid, repeated or taken), "create" makes the ${CALLSIGNS} single-use slips and reserves their callsigns in one transaction, "status" is the batch page's view of all of them.${postgresUrl ? '' : ' PostgreSQL: only with a server from run.sh.'}`,
    '',
    table(
      [
        'engine',
        'members already',
        'check ms',
        'create ms',
        'create answer',
        'status ms',
        'status answer',
      ],
      rows,
    ),
    '',
  ].join('\n');
  return { markdown, results: { ...results, loadBefore, loadAfter } };
}
