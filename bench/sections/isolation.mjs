// Section 5: isolation (issue 13, finding 4). Members hammering key downloads must not move other
// callers' p99 by more than 2x: `check-auth/validuser` with another member's key and the admin's
// `people/list`, each measured by one client, idle and while the hammer runs, in alternating
// phases so that the machine's load falls on both alike.
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fmt, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { namedTargets, pooledClient, requestOnce } from '../lib/client.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const PARALLEL = 50;
/** The probes' pace: 100 and 20 requests a second. */
export const CHECK_AUTH_EVERY_MS = 10;
export const PEOPLE_LIST_EVERY_MS = 50;

/**
 * @typedef {{ callsign: string, certPem: string, keyPem: string }} Key
 * @typedef {{ port: number, host: string, mtlsHost: string, chainPem: string }} Server
 */

/**
 * Bursts: one request per key at once (50 when the same key is repeated 50 times: one member
 * asking 50 times in parallel), and when all have answered, the next burst, until `stop()`. The
 * connections are opened first (one light request each), so that the hammered phase measures
 * the calls, not 50 TLS handshakes at once.
 * @param {Server} server
 * @param {Key[]} keys one per request of a burst
 * @param {(key: Key) => string} pathOf the call each request makes
 */
async function startHammer(server, keys, pathOf) {
  /** @type {Map<Key, https.Agent>} */
  const agents = new Map();
  for (const key of keys) {
    if (agents.has(key)) continue;
    agents.set(
      key,
      new https.Agent({
        keepAlive: true,
        maxSockets: keys.length,
        ca: server.chainPem,
        cert: key.certPem,
        key: key.keyPem,
        servername: server.mtlsHost,
      }),
    );
  }
  /** @param {Key} key @param {string} urlPath @returns {Promise<string>} */
  const get = (key, urlPath) =>
    new Promise((resolve) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: urlPath,
          headers: { host: `${server.mtlsHost}:${server.port}` },
          agent: agents.get(key),
          servername: server.mtlsHost,
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(String(response.statusCode)));
        },
      );
      request.on('error', (error) => resolve(`error ${error.message}`));
      request.end();
    });
  await Promise.all(keys.map((key) => get(key, '/api/v1/check-auth/validuser')));

  /** @type {Record<string, number>} */
  const statuses = {};
  let running = true;
  let bursts = 0;
  const started = performance.now();
  const loop = (async () => {
    while (running) {
      const answers = await Promise.all(keys.map((key) => get(key, pathOf(key))));
      for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1;
      bursts += 1;
    }
  })();
  return {
    /** Stops after the burst in flight; `seconds` runs until its last answer. */
    async stop() {
      running = false;
      await loop;
      const seconds = (performance.now() - started) / 1000;
      for (const agent of agents.values()) agent.destroy();
      return { statuses, seconds, bursts };
    },
  };
}

/**
 * The other callers whose latency a hammer must not move: another member's `check-auth` every
 * CHECK_AUTH_EVERY_MS and the admin's member list every PEOPLE_LIST_EVERY_MS (open loops).
 * @param {Parameters<typeof namedTargets>[0]} info
 */
export function otherCallerProbes(info) {
  const named = namedTargets(info);
  return [
    {
      name: '`check-auth/validuser`',
      server: info,
      target: named['check-auth'],
      everyMs: CHECK_AUTH_EVERY_MS,
    },
    {
      name: '`people/list`',
      server: info,
      target: named['people/list'],
      everyMs: PEOPLE_LIST_EVERY_MS,
    },
  ];
}

/**
 * Both probes at once, until `done` settles, each in an open loop: a request falls due every
 * `everyMs` whatever the answers do (on up to 4 keep-alive connections), and its latency counts
 * from when it fell due. A stall of the server then shows in every request due during it, as it
 * would for callers who do not wait for each other (a sequential client would show it once).
 * @param {{ name: string, server: Server, target: import('../lib/client.mjs').Target, everyMs: number }[]} probes
 * @param {Promise<unknown>} done
 */
export async function probe(probes, done) {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  return Promise.all(
    probes.map(async ({ server, target, everyMs }) => {
      const client = pooledClient(server, target, 4);
      /** @type {number[]} */
      const latencies = [];
      let failures = 0;
      /** @type {Promise<void>[]} */
      const answers = [];
      let due = performance.now();
      try {
        while (!finished) {
          const dueAt = due;
          answers.push(
            client.get().then(
              (answer) => {
                if (answer.status === 200) latencies.push(performance.now() - dueAt);
                else failures++;
              },
              () => {
                failures++;
              },
            ),
          );
          due += everyMs;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
        }
        await Promise.all(answers);
      } finally {
        client.close();
      }
      return { latencies, failures };
    }),
  );
}

/** @param {Record<string, number>} statuses */
function describeStatuses(statuses) {
  return (
    Object.entries(statuses)
      .sort()
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ') || 'none'
  );
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function isolationSection({ quick, workDir, log }) {
  const members = quick ? 1_000 : 10_000;
  const phaseMs = quick ? 2_000 : 5_000;
  const rounds = quick ? 1 : 3;
  /** @type {string[]} */
  const markdown = ['## Isolation: members hammering key downloads', ''];
  /** @type {Record<string, unknown>} */
  const results = {};
  const engines = ['sqlite'];
  if (process.env.PORTAL_TEST_POSTGRES_URL) engines.push('postgres');
  markdown.push(
    `${members} active members. Probes, both at once, each an open loop (a request falls due every ${CHECK_AUTH_EVERY_MS} ms for \`GET check-auth/validuser\` with another member's key, every ${PEOPLE_LIST_EVERY_MS} ms for the admin's \`GET people/list\`, on up to 4 keep-alive TLS connections each; latency counted from when the request fell due, so a stall shows in every request due during it). ${rounds} round(s) of an idle phase of ${phaseMs / 1000} s, then a hammered phase that lasts ${phaseMs / 1000} s and then until the hammer's last burst has answered; p50/p99 over all samples of a phase kind, in ms. The hammer: bursts of ${PARALLEL} requests at once (mTLS, each member with their own key), the next burst as soon as the last one has answered, on connections opened just before its phase; \`GET enduserpfx\` of the member's own key, or for comparison the cheapest call of all, \`check-auth/validuser\`.`,
    '',
  );
  if (!process.env.PORTAL_TEST_POSTGRES_URL) {
    markdown.push(
      'PostgreSQL: not measured (PORTAL_TEST_POSTGRES_URL unset; run.sh starts one).',
      '',
    );
  }

  // Limits as configured by default, and with the hourly issuance limit lifted (the other bounds
  // stay): the second shows what continuous minting costs the others.
  const portals = [
    { id: 'default', env: {} },
    { id: 'unlimited', env: { PORTAL_KEYS_PER_HOUR: '100000' } },
  ];
  for (const engine of engines) {
    /** @type {(string | number)[][]} */
    const rows = [];
    const engineResults = /** @type {Record<string, unknown>} */ ({});
    const loadBefore = loadAverage();
    for (const { id, env } of portals) {
      const databaseUrl =
        engine === 'postgres'
          ? await createPostgresDatabase(
              /** @type {string} */ (process.env.PORTAL_TEST_POSTGRES_URL),
              `bench_isolation_${id}_${process.pid}`,
            )
          : undefined;
      log(`  ${engine}/${id}: starting, ${members} members and ${PARALLEL} key holders`);
      const portal = await startChild(portalScript, [
        JSON.stringify({
          dataDir: path.join(workDir, `isolation-${engine}-${id}`),
          databaseUrl,
          active: members,
          pending: 0,
          keyHolders: PARALLEL,
          env,
        }),
      ]);
      const info = portal.info;
      try {
        const probes = otherCallerProbes(info);
        for (const { name, target } of probes) {
          const once = await requestOnce(info, target);
          if (once.status !== 200) throw new Error(`${name} answered ${once.status}`);
        }
        /** @type {Key[]} */
        const holders = info.keyHolders;
        /** @param {Key} key */
        const download = (key) => `/api/v1/enduserpfx/${key.callsign}`;
        const checkAuth = () => '/api/v1/check-auth/validuser';
        const scenarios =
          id === 'default'
            ? [
                {
                  name: 'one member, 50 parallel downloads, default limits',
                  keys: holders.map(() => holders[0]),
                  pathOf: download,
                },
                {
                  name: 'for comparison: one member, 50 parallel `check-auth`',
                  keys: holders.map(() => holders[1]),
                  pathOf: checkAuth,
                },
              ]
            : [
                {
                  name: 'one member, 50 parallel downloads, hourly limit lifted',
                  keys: holders.map(() => holders[0]),
                  pathOf: download,
                },
                {
                  name: '50 members, one download each at once, hourly limit lifted',
                  keys: holders,
                  pathOf: download,
                },
              ];
        for (const scenario of scenarios) {
          if (scenario.keys.length === 0) continue;
          // Warm-up: JIT and the probes' first connections.
          await probe(probes, sleep(500));
          /** @type {number[][]} */
          const idle = probes.map(() => []);
          /** @type {number[][]} */
          const hammered = probes.map(() => []);
          /** @type {Record<string, number>} */
          const statuses = {};
          let hammerSeconds = 0;
          let probeFailures = 0;
          for (let round = 0; round < rounds; round++) {
            const quiet = await probe(probes, sleep(phaseMs));
            quiet.forEach((r, i) => idle[i]?.push(...r.latencies));
            const load = await startHammer(info, scenario.keys, scenario.pathOf);
            // Measured until the hammer's last burst has answered, not just for phaseMs: the
            // end of a burst (its certificates signed and packed together) is part of it.
            const stopped = sleep(phaseMs).then(() => load.stop());
            const busy = await probe(probes, stopped);
            const done = await stopped;
            busy.forEach((r, i) => hammered[i]?.push(...r.latencies));
            probeFailures += [...quiet, ...busy].reduce((sum, r) => sum + r.failures, 0);
            for (const [status, count] of Object.entries(done.statuses)) {
              statuses[status] = (statuses[status] ?? 0) + count;
            }
            hammerSeconds += done.seconds;
            log(
              `  ${engine}/${scenario.name}, round ${round + 1}/${rounds}: hammer ${describeStatuses(done.statuses)} (load ${loadAverage()})`,
            );
          }
          const minted = scenario.pathOf === download ? (statuses['200'] ?? 0) : 0;
          probes.forEach(({ name }, i) => {
            const quiet = idle[i] ?? [];
            const busy = hammered[i] ?? [];
            const ratio = percentile(busy, 99) / percentile(quiet, 99);
            rows.push([
              scenario.name,
              name,
              `${fmt(percentile(quiet, 50))} / ${fmt(percentile(quiet, 99))} / ${fmt(percentile(quiet, 100), 0)}`,
              `${fmt(percentile(busy, 50))} / ${fmt(percentile(busy, 99))} / ${fmt(percentile(busy, 100), 0)}`,
              `${fmt(ratio, 2)}x`,
              `${quiet.length} / ${busy.length}`,
              i === 0 ? describeStatuses(statuses) : '',
              i === 0 ? fmt(minted / hammerSeconds, 1) : '',
            ]);
            engineResults[`${scenario.name} ${name}`] = {
              idle: { p50: percentile(quiet, 50), p99: percentile(quiet, 99), n: quiet.length },
              hammered: { p50: percentile(busy, 50), p99: percentile(busy, 99), n: busy.length },
              ratio,
            };
          });
          engineResults[`${scenario.name} hammer`] = { statuses, hammerSeconds, probeFailures };
        }
      } finally {
        await portal.stop();
      }
    }
    const loadAfter = loadAverage();
    engineResults.loadBefore = loadBefore;
    engineResults.loadAfter = loadAfter;
    results[engine] = engineResults;
    markdown.push(
      `### ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      `Load average before: ${loadBefore}; after: ${loadAfter}.`,
      '',
      table(
        [
          'hammer',
          'probe',
          'idle p50 / p99 / max ms',
          'hammered p50 / p99 / max ms',
          'p99 hammered / idle',
          'samples idle / hammered',
          'hammer answers',
          'keys minted per s',
        ],
        rows,
      ),
      '',
    );
  }
  return { markdown: markdown.join('\n'), results };
}
