// Section 4: growth. The member list, the enrollment list and the CRL from 100 to 100,000
// members: time and size, so the cost curve is known before a deployment reaches it. SQLite, and
// PostgreSQL too in full mode when run.sh started one.
import path from 'node:path';
import { fmt, kb, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { requestOnce, sequentialClient } from '../lib/client.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const REVOKED_SHARE = 0.1;

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function growthSection({ quick, workDir, log }) {
  const loadBefore = loadAverage();
  const sizes = quick ? [100, 1000] : [100, 1000, 10_000, 100_000];
  /** @type {(string | number)[][]} */
  const rows = [];
  /** @type {Record<string, unknown>} */
  const results = {};
  const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;
  const runs = sizes.map((size) => /** @type {const} */ (['sqlite', size]));
  if (!quick && postgresUrl)
    runs.push(...sizes.map((size) => /** @type {const} */ (['postgres', size])));
  for (const [engine, size] of runs) {
    const pending = Math.round(size / 10);
    log(`  growth: ${size} members on ${engine}`);
    const databaseUrl =
      engine === 'postgres' && postgresUrl
        ? await createPostgresDatabase(postgresUrl, `bench_growth_${size}_${process.pid}`)
        : undefined;
    const portal = await startChild(portalScript, [
      JSON.stringify({
        dataDir: path.join(workDir, `growth-${engine}-${size}`),
        databaseUrl,
        active: size,
        pending,
        revokedShare: REVOKED_SHARE,
      }),
    ]);
    const { info } = portal;
    try {
      const reps = quick ? 3 : size >= 100_000 ? 5 : 15;
      /** @type {Record<string, any>} */
      const figures = { seedMs: info.seedMs };
      for (const [name, target] of /** @type {const} */ ([
        ['people/list', { face: 'mtls', path: '/api/v1/people/list', key: info.admin }],
        ['enrollment/list', { face: 'mtls', path: '/api/v1/enrollment/list', key: info.admin }],
      ])) {
        const client = sequentialClient(info, target);
        const first = await client.get();
        if (first.status !== 200) throw new Error(`${name} answered ${first.status}`);
        const times = [];
        for (let i = 0; i < reps; i++) times.push((await client.get()).ms);
        client.close();
        figures[name] = { bytes: first.bytes, p50: percentile(times, 50), max: Math.max(...times) };
      }
      // The CRL: the first fetch signs it (cold), later ones are served from the cache after a
      // check that nothing was revoked since.
      const crlTarget = /** @type {const} */ ({ face: 'public', path: '/ca/crl.der' });
      const cold = await requestOnce(info, crlTarget);
      if (cold.status !== 200) throw new Error(`crl.der answered ${cold.status}`);
      const crlClient = sequentialClient(info, crlTarget);
      await crlClient.get();
      const warm = [];
      for (let i = 0; i < reps; i++) warm.push((await crlClient.get()).ms);
      crlClient.close();
      figures.crl = {
        entries: Math.floor(size * REVOKED_SHARE),
        bytes: cold.bytes,
        coldMs: cold.ms,
        warmP50: percentile(warm, 50),
      };
      results[`${engine} ${size}`] = figures;
      rows.push([
        engine,
        size,
        pending,
        fmt(info.seedMs / 1000, 1),
        `${fmt(figures['people/list'].p50)} (${fmt(figures['people/list'].max)})`,
        kb(figures['people/list'].bytes),
        `${fmt(figures['enrollment/list'].p50)} (${fmt(figures['enrollment/list'].max)})`,
        kb(figures['enrollment/list'].bytes),
        figures.crl.entries,
        fmt(figures.crl.coldMs),
        fmt(figures.crl.warmP50),
        kb(figures.crl.bytes),
      ]);
    } finally {
      await portal.stop();
    }
  }
  const loadAfter = loadAverage();
  const markdown = [
    '## 4. Growth',
    '',
    `Load average before: ${loadBefore}; after: ${loadAfter}. N active members (each with an approved enrollment and a certificate, ${REVOKED_SHARE * 100} % of those certificates revoked) plus N/10 pending enrollees. One client on a keep-alive connection; times in ms, median of ${quick ? 3 : '15 (5 at 100,000)'} requests (slowest in brackets). The CRL's cold time includes signing it; warm is the cached CRL after the revocation check.${!quick && postgresUrl ? '' : ' PostgreSQL: only in full mode with a server from run.sh.'}`,
    '',
    table(
      [
        'engine',
        'members',
        'pending',
        'seed s',
        'people/list ms',
        'people/list size',
        'enrollment/list ms',
        'enrollment/list size',
        'CRL entries',
        'CRL cold ms',
        'CRL warm ms',
        'CRL size (DER)',
      ],
      rows,
    ),
    '',
  ].join('\n');
  return { markdown, results: { ...results, loadBefore, loadAfter } };
}
