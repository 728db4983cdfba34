// Section 2: the API under load, 10,000 members and 1,000 pending enrollees, on SQLite and on
// PostgreSQL, against a bare Fastify route behind the same TLS listener.
import path from 'node:path';
import { fmt, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { cannon, handshakeLoop, namedTargets, requestOnce } from '../lib/client.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const bareScript = new URL('../lib/bare-process.mjs', import.meta.url).pathname;

export const ACTIVE = 10_000;
export const PENDING = 1_000;

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function apiSection({ quick, workDir, log }) {
  const duration = quick ? 1 : 5;
  const warmup = quick ? 0.5 : 1;
  const throughputConnections = 10;
  const handshakeMs = quick ? 1000 : 4000;
  /** @type {string[]} */
  const markdown = ['## 2. API under load', ''];
  /** @type {Record<string, unknown>} */
  const results = {};
  const engines = ['sqlite'];
  if (process.env.PORTAL_TEST_POSTGRES_URL) engines.push('postgres');
  else
    markdown.push(
      'PostgreSQL: not measured (PORTAL_TEST_POSTGRES_URL unset; run.sh starts one).',
      '',
    );

  for (const engine of engines) {
    const loadBefore = loadAverage();
    const dataDir = path.join(workDir, `api-${engine}`);
    const databaseUrl =
      engine === 'postgres'
        ? await createPostgresDatabase(
            /** @type {string} */ (process.env.PORTAL_TEST_POSTGRES_URL),
            `bench_api_${process.pid}`,
          )
        : undefined;
    log(`  ${engine}: starting and seeding ${ACTIVE} members, ${PENDING} pending`);
    const portal = await startChild(portalScript, [
      JSON.stringify({ dataDir, databaseUrl, active: ACTIVE, pending: PENDING }),
    ]);
    const info = portal.info;
    const bare = await startChild(bareScript, [
      dataDir,
      info.mtlsHost,
      `https://${info.host}:${info.port}`,
    ]);
    const bareServer = { ...info, port: bare.info.port };
    try {
      const named = namedTargets(info);
      /** @type {{ name: string, server: any, target: import('../lib/client.mjs').Target }[]} */
      const targets = [
        {
          name: 'enrollment poll `GET enrollment/have-i-been-accepted` (public, bearer)',
          server: info,
          target: named.poll,
        },
        { name: '`GET people/list` (mTLS, admin)', server: info, target: named['people/list'] },
        {
          name: '`GET enrollment/list` (mTLS, admin)',
          server: info,
          target: named['enrollment/list'],
        },
        {
          name: '`GET check-auth/validuser` (mTLS, member)',
          server: info,
          target: named['check-auth'],
        },
        {
          name: 'bare Fastify route (mTLS, member key, same TLS listener)',
          server: bareServer,
          target: { face: 'mtls', path: '/api/v1/bare', key: info.member },
        },
      ];
      /** @type {(string | number)[][]} */
      const rows = [];
      /** @type {Record<string, any>} */
      const engineResults = { seedMs: info.seedMs };
      let bareRps = NaN;
      /** @type {any[]} */
      const measured = [];
      for (const { name, server, target } of targets) {
        const once = await requestOnce(server, target);
        if (once.status !== 200) throw new Error(`${name} answered ${once.status}: ${once.body}`);
        await cannon(server, target, { connections: 1, duration: warmup });
        const single = await cannon(server, target, { connections: 1, duration });
        const loaded = await cannon(server, target, {
          connections: throughputConnections,
          duration,
        });
        measured.push({ name, bytes: once.bytes, single, loaded });
        if (target.path === '/api/v1/bare') bareRps = loaded.requestsPerSecond;
        log(`  ${engine}: ${name}: ${fmt(single.requestsPerSecond, 0)} req/s at c=1`);
      }
      for (const { name, bytes, single, loaded } of measured) {
        rows.push([
          name,
          bytes,
          fmt(single.requestsPerSecond, 0),
          `${fmt(single.mean, 2)} / ${single.p50} / ${single.p99}`,
          fmt(loaded.requestsPerSecond, 0),
          `${fmt(loaded.mean, 1)} / ${loaded.p50} / ${loaded.p99}`,
          fmt(loaded.requestsPerSecond / bareRps, 3),
          single.non2xx + loaded.non2xx + single.errors + loaded.errors,
        ]);
        engineResults[name] = { bytes, single, loaded };
      }

      // New connection per request: full TLS handshake with a client certificate each time.
      const handshakes = [];
      for (const [name, server, target] of /** @type {const} */ ([
        ['portal `check-auth/validuser`', info, targets[3].target],
        ['bare Fastify route', bareServer, targets[4].target],
      ])) {
        const loop = await handshakeLoop(server, target, {
          concurrency: 4,
          durationMs: handshakeMs,
        });
        handshakes.push([
          name,
          fmt(loop.perSecond, 0),
          fmt(percentile(loop.latencies, 50)),
          fmt(percentile(loop.latencies, 99)),
          loop.failures,
        ]);
        engineResults[`handshake ${name}`] = {
          perSecond: loop.perSecond,
          p50: percentile(loop.latencies, 50),
          p99: percentile(loop.latencies, 99),
          failures: loop.failures,
        };
      }
      const loadAfter = loadAverage();
      const poll = measured[0].single;
      const people = measured[1].single;
      engineResults.loadBefore = loadBefore;
      engineResults.loadAfter = loadAfter;
      results[engine] = engineResults;
      markdown.push(
        `### ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
        '',
        `Load average before: ${loadBefore}; after: ${loadAfter}. Seeded ${ACTIVE} active members (each with an approved enrollment and a certificate) and ${PENDING} pending enrollees in ${fmt(info.seedMs / 1000, 1)} s. autocannon over keep-alive TLS, ${duration} s per figure after a ${warmup} s warm-up; latencies in ms (autocannon's percentiles are whole milliseconds).`,
        '',
        table(
          [
            'call',
            'body bytes',
            'req/s c=1',
            'mean / p50 / p99 c=1',
            `req/s c=${throughputConnections}`,
            `mean / p50 / p99 c=${throughputConnections}`,
            'req/s vs bare',
            'non-2xx + errors',
          ],
          rows,
        ),
        '',
        `TLS handshakes on the mTLS face (new connection with a client certificate per request, 4 loops in this process, ${handshakeMs / 1000} s):`,
        '',
        table(['server', 'connections/s', 'p50 ms', 'p99 ms', 'failures'], handshakes),
        '',
        `- Budget "p99 < 20 ms at 10,000 members" (one client): enrollment poll ${poll.p99} ms → ${poll.p99 < 20 ? '**met**' : '**missed**'}; member list ${people.p99} ms → ${people.p99 < 20 ? '**met**' : '**missed**'}.`,
        '',
      );
    } finally {
      await bare.stop();
      await portal.stop();
    }
  }
  return { markdown: markdown.join('\n'), results };
}
