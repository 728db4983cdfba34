// Section 6: a car park full of people onboarding at once (issue 20). 100 members, each with a
// bearer token of their own, all at once: enrollment poll -> key download -> TAK package, while
// the isolation section's probes (check-auth with another member's key, the admin's people/list)
// measure what everyone else sees. With and without the key pool; the physical limit beside it
// (the same number of RSA-2048 key generations on this machine's cores); the download's p50 with
// the pool warm and without keys made ahead; the event loop's longest stall inside the portal
// during the burst, and while the CRL is re-signed after a revocation at 10,000 and 100,000
// revoked certificates.
import { generateKeyPair } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { fmt, importServer, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { createPostgresDatabase } from '../lib/postgres.mjs';
import { seed } from '../lib/seed.mjs';
import {
  CHECK_AUTH_EVERY_MS,
  otherCallerProbes,
  PEOPLE_LIST_EVERY_MS,
  probe,
} from './isolation.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const MEMBERS = 100;
/** Members besides the burst's who download one at a time (warm and drained p50). */
const SEQUENTIAL = 10;
/** Keys the portal makes for each member: the download's, and one for all their TAK packages. */
const KEYS_PER_MEMBER = 2;
const generate = promisify(generateKeyPair);

/**
 * @typedef {{ port: number, host: string, mtlsHost: string, chainPem: string }} Server
 * @typedef {{ call: string, status: number, ms: number, bytes: number }} Answer
 */

/**
 * One member's phone: one keep-alive TLS connection to the public face, their bearer token.
 * @param {Server} server
 * @param {string} jwt
 */
function memberClient(server, jwt) {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 1,
    ca: server.chainPem,
    servername: server.host,
  });
  return {
    /** @param {string} call @param {string} urlPath @returns {Promise<Answer & { body: Buffer }>} */
    get: (call, urlPath) =>
      new Promise((resolve) => {
        const begin = performance.now();
        const request = https.request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: urlPath,
            headers: { host: `${server.host}:${server.port}`, authorization: `Bearer ${jwt}` },
            agent,
            servername: server.host,
          },
          (response) => {
            /** @type {Buffer[]} */
            const chunks = [];
            response.on('data', (chunk) => chunks.push(chunk));
            response.on('end', () => {
              const body = Buffer.concat(chunks);
              resolve({
                call,
                status: response.statusCode ?? 0,
                ms: performance.now() - begin,
                bytes: body.length,
                body,
              });
            });
          },
        );
        request.on('error', () =>
          resolve({
            call,
            status: 0,
            ms: performance.now() - begin,
            bytes: 0,
            body: Buffer.alloc(0),
          }),
        );
        request.end();
      }),
    close: () => agent.destroy(),
  };
}

/**
 * One member onboarding: poll, key download, TAK package, one after the other.
 * @param {Server} server @param {{ callsign: string, jwt: string }} member
 */
async function onboard(server, member) {
  const client = memberClient(server, member.jwt);
  try {
    const poll = await client.get('enrollment poll', '/api/v1/enrollment/have-i-been-accepted');
    const download = await client.get(
      'key download',
      `/api/v1/enduserpfx/${encodeURIComponent(member.callsign)}`,
    );
    const tak = await client.get('TAK package', '/api/v1/instructions/user');
    return { answers: [poll, download, tak], done: performance.now() };
  } finally {
    client.close();
  }
}

/** @param {{ pid: number }} portal @param {string} dataDir */
async function loopStalls(portal, dataDir) {
  const before = Date.now();
  process.kill(portal.pid, 'SIGUSR2');
  for (let tries = 0; tries < 100; tries++) {
    await sleep(50);
    const text = await readFile(path.join(dataDir, 'loop.json'), 'utf8').catch(() => '');
    if (text === '') continue;
    const stalls = /** @type {{ maxMs: number, p99Ms: number, at: number }} */ (JSON.parse(text));
    if (stalls.at >= before) return stalls;
  }
  return { maxMs: Number.NaN, p99Ms: Number.NaN, at: 0 };
}

/**
 * N RSA-2048 key generations, as many at once as there are cores: the least time any server on
 * this machine needs to make the burst's keys.
 * @param {number} n
 */
async function keygenLimit(n) {
  const cores = os.availableParallelism();
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: cores }, async () => {
      while (next < n) {
        next += 1;
        await generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
      }
    }),
  );
  return { seconds: (performance.now() - begin) / 1000, cores };
}

/**
 * The event loop's longest stall while one revocation re-signs the CRL, in this process, on the
 * built server's own service objects over a SQLite database holding `revoked` revoked
 * certificates (seeded as the growth section seeds).
 * @param {string} workDir @param {number} revoked
 */
export async function crlStall(workDir, revoked) {
  const { loadConfig } = await importServer('config.js');
  const { openPortal } = await importServer('portal.js');
  const dataDir = path.join(workDir, `crl-stall-${revoked}`);
  const { cp, mkdir } = await import('node:fs/promises');
  const caTemplate = process.env.BENCH_CA_TEMPLATE;
  if (caTemplate) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await cp(caTemplate, path.join(dataDir, 'ca'), { recursive: true });
  }
  const config = loadConfig(
    { PORTAL_DATA_DIR: dataDir, PORTAL_METRICS_ADDRESS: 'off', PORTAL_LOG_LEVEL: 'silent' },
    { version: '0.0.0-bench' },
  );
  const portal = await openPortal(config, { migrate: true });
  try {
    const db = portal.database.db;
    // All but one of the members' certificates revoked; that one is revoked below.
    await seed(db, { active: revoked + 1, pending: 0, revokedShare: 1 });
    await db
      .updateTable('issued_certificates')
      .set({ revoked_at: null, revocation_reason: null })
      .where('callsign', '=', 'M000001')
      .execute();
    await portal.certificates.currentCrl();
    const delays = monitorEventLoopDelay({ resolution: 1 });
    delays.enable();
    // Let the monitor's timer tick once first: a stall before its first tick is not recorded.
    await sleep(10);
    const begin = performance.now();
    await db
      .transaction()
      .execute((trx) => portal.certificates.revokeAllOf(trx, 'M000001', 'bench'));
    const crl = await portal.certificates.currentCrl();
    const ms = performance.now() - begin;
    // One more turn of the loop, so that a stall at the very end is recorded too.
    await sleep(20);
    delays.disable();
    return { revoked: revoked + 1, ms, maxStallMs: delays.max / 1e6, bytes: crl.der.length };
  } finally {
    await portal.close();
  }
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function burstSection({ quick, workDir, log }) {
  const members = quick ? 1_000 : 10_000;
  const idleMs = quick ? 2_000 : 5_000;
  /** @type {string[]} */
  const markdown = ['## Burst, key pool, event-loop stalls', ''];
  /** @type {Record<string, unknown>} */
  const results = {};
  const engines = ['sqlite'];
  if (process.env.PORTAL_TEST_POSTGRES_URL) engines.push('postgres');
  markdown.push(
    `${MEMBERS} of ${members} active members onboard at once, each on their own keep-alive TLS connection to the public face with a bearer token of their own: \`GET enrollment/have-i-been-accepted\`, then \`GET enduserpfx/{callsign}\` (legacy .pfx, a key made by the portal), then \`GET instructions/user\` (TAK settings packages: one more key, the same keystore in each package), one after the other. Meanwhile the isolation section's probes, open loops: \`check-auth/validuser\` (another member's key, mTLS) every ${CHECK_AUTH_EVERY_MS} ms and the admin's \`people/list\` every ${PEOPLE_LIST_EVERY_MS} ms, against an idle phase of ${idleMs / 1000} s just before. Inside the portal, \`monitorEventLoopDelay\` records the longest stall of the burst. The \`signClient/v2\` leg (TAK enrollment with a CSR) is measured on its own in the enroll section.`,
    '',
  );
  if (!process.env.PORTAL_TEST_POSTGRES_URL) {
    markdown.push('PostgreSQL: not measured (PORTAL_TEST_POSTGRES_URL unset).', '');
  }

  const variants = [
    { id: 'no pool', env: { PORTAL_KEY_POOL_SIZE: '0' } },
    { id: 'pool 16 (default)', env: {} },
    {
      id: `pool ${MEMBERS * KEYS_PER_MEMBER}`,
      env: { PORTAL_KEY_POOL_SIZE: String(MEMBERS * KEYS_PER_MEMBER) },
    },
  ];
  /** @type {(string | number)[][]} */
  const burstRows = [];
  /** @type {(string | number)[][]} */
  const probeRows = [];
  /** @type {(string | number)[][]} */
  const downloadRows = [];
  for (const engine of engines) {
    for (const { id, env } of variants) {
      const databaseUrl =
        engine === 'postgres'
          ? await createPostgresDatabase(
              /** @type {string} */ (process.env.PORTAL_TEST_POSTGRES_URL),
              `bench_burst_${id.replace(/\W+/g, '_')}_${process.pid}`,
            )
          : undefined;
      const dataDir = path.join(workDir, `burst-${engine}-${id.replace(/\W+/g, '-')}`);
      log(`  ${engine}/${id}: starting, ${members} members, waiting for the key pool`);
      const portal = await startChild(
        portalScript,
        [
          JSON.stringify({
            dataDir,
            databaseUrl,
            active: members,
            pending: 0,
            burstMembers: MEMBERS + SEQUENTIAL,
            waitForKeyPool: true,
            loopMonitor: true,
            env,
          }),
        ],
        { timeoutMs: 900_000 },
      );
      const info = portal.info;
      try {
        /** @type {{ callsign: string, jwt: string }[]} */
        const all = info.burst;
        const burstMembers = all.slice(0, MEMBERS);
        const sequentialMembers = all.slice(MEMBERS);
        // The download alone, one at a time, by members outside the burst: the pool warm (or
        // no pool: every key made on the request, as with a drained pool).
        /** @type {number[]} */
        const sequential = [];
        for (const member of sequentialMembers) {
          const client = memberClient(info, member.jwt);
          await client.get('poll', '/api/v1/enrollment/have-i-been-accepted');
          const answer = await client.get(
            'key download',
            `/api/v1/enduserpfx/${encodeURIComponent(member.callsign)}`,
          );
          client.close();
          if (answer.status === 200) sequential.push(answer.ms);
        }
        downloadRows.push([
          engine,
          id,
          `${info.keyPool} (filled in ${fmt((info.keyPoolFilledMs ?? 0) / 1000, 1)} s)`,
          `${fmt(percentile(sequential, 50))} / ${fmt(percentile(sequential, 100))}`,
          sequential.length,
          loadAverage(),
        ]);
        // The pool refills while idle: full again before the burst.
        await sleep(id === 'no pool' ? 0 : 3_000);

        const probes = otherCallerProbes(info);
        await probe(probes, sleep(500));
        const quiet = await probe(probes, sleep(idleMs));
        const loadBefore = loadAverage();
        await loopStalls(portal, dataDir);
        const begin = performance.now();
        const onboarding = Promise.all(burstMembers.map((member) => onboard(info, member)));
        const busy = await probe(probes, onboarding);
        const done = await onboarding;
        const lastDone = Math.max(...done.map((member) => member.done)) - begin;
        const stalls = await loopStalls(portal, dataDir);

        /** @type {Record<string, number[]>} */
        const byCall = {};
        /** @type {Record<string, number>} */
        const statuses = {};
        for (const member of done) {
          for (const answer of member.answers) {
            const key = `${answer.call} ${answer.status}`;
            statuses[key] = (statuses[key] ?? 0) + 1;
            if (answer.status === 200) (byCall[answer.call] ??= []).push(answer.ms);
          }
        }
        const calls = Object.entries(byCall)
          .map(
            ([call, ms]) => `${call} ${fmt(percentile(ms, 50), 0)} / ${fmt(percentile(ms, 99), 0)}`,
          )
          .join('; ');
        burstRows.push([
          engine,
          id,
          fmt(lastDone / 1000, 2),
          calls,
          Object.entries(statuses)
            .sort()
            .map(([status, count]) => `${count} × ${status}`)
            .join(', '),
          `${fmt(stalls.maxMs, 0)}`,
          `${loadBefore} → ${loadAverage()}`,
        ]);
        probes.forEach(({ name }, i) => {
          const idle = quiet[i]?.latencies ?? [];
          const loaded = busy[i]?.latencies ?? [];
          const ratio = percentile(loaded, 99) / percentile(idle, 99);
          probeRows.push([
            engine,
            id,
            name,
            `${fmt(percentile(idle, 50))} / ${fmt(percentile(idle, 99))}`,
            `${fmt(percentile(loaded, 50))} / ${fmt(percentile(loaded, 99))} / ${fmt(percentile(loaded, 100), 0)}`,
            `${fmt(ratio, 2)}x`,
          ]);
          results[`${engine} ${id} ${name}`] = {
            idleP99: percentile(idle, 99),
            burstP99: percentile(loaded, 99),
            ratio,
          };
        });
        results[`${engine} ${id}`] = {
          lastDoneMs: lastDone,
          statuses,
          loopMaxStallMs: stalls.maxMs,
          byCall: Object.fromEntries(
            Object.entries(byCall).map(([call, ms]) => [
              call,
              { p50: percentile(ms, 50), p99: percentile(ms, 99) },
            ]),
          ),
          sequentialDownloadP50: percentile(sequential, 50),
        };
        log(
          `  ${engine}/${id}: last member done after ${fmt(lastDone / 1000, 2)} s, longest stall ${fmt(stalls.maxMs, 0)} ms (load ${loadAverage()})`,
        );
      } finally {
        await portal.stop();
      }
    }
  }

  const keys = MEMBERS * KEYS_PER_MEMBER;
  log(`  physical limit: ${keys} RSA-2048 key generations`);
  const limitLoad = loadAverage();
  const limit = await keygenLimit(keys);
  results.keygenLimit = { keys, ...limit };

  /** @type {(string | number)[][]} */
  const crlRows = [];
  for (const revoked of quick ? [10_000] : [10_000, 100_000]) {
    log(`  CRL: revocation at ${revoked} revoked`);
    const load = loadAverage();
    const stall = await crlStall(workDir, revoked);
    crlRows.push([
      stall.revoked,
      fmt(stall.ms, 0),
      fmt(stall.maxStallMs, 0),
      `${Math.round(stall.bytes / 1024)} KB`,
      load,
    ]);
    results[`crl ${revoked}`] = stall;
  }

  markdown.push(
    '### The burst',
    '',
    `Time until the last of ${MEMBERS} members has all three answers; per call p50 / p99 in ms (answers 200 only); the longest event-loop stall inside the portal during the burst. Each member is issued ${KEYS_PER_MEMBER} keys: the download's, and one for their TAK packages (the same keystore in every package).`,
    '',
    table(
      [
        'engine',
        'key pool',
        'last member done (s)',
        'p50 / p99 ms by call',
        'answers',
        'longest stall (ms)',
        'load average',
      ],
      burstRows,
    ),
    '',
    `Physical limit: ${keys} RSA-2048 key generations (Node's \`generateKeyPair\`, ${limit.cores} at a time on ${limit.cores} cores) took ${fmt(limit.seconds, 2)} s (load average ${limitLoad}).`,
    '',
    '### Everyone else during the burst',
    '',
    table(
      [
        'engine',
        'key pool',
        'probe',
        'idle p50 / p99 ms',
        'burst p50 / p99 / max ms',
        'p99 burst / idle',
      ],
      probeRows,
    ),
    '',
    '### One download at a time',
    '',
    `${SEQUENTIAL} members outside the burst download their key one after the other before it (after an enrollment poll on the same connection): p50 / max in ms. Without a pool every key is made on the request, which is what a drained pool does.`,
    '',
    table(
      [
        'engine',
        'key pool',
        'keys in the pool at start',
        'download p50 / max ms',
        'samples',
        'load average after',
      ],
      downloadRows,
    ),
    '',
    '### CRL re-signed after a revocation',
    '',
    "In the bench process, on the built server's own service objects over SQLite: one member revoked (their certificate joins the others), then the CRL signed as the next fetch would; the longest event-loop stall (`monitorEventLoopDelay`, 1 ms resolution) over both.",
    '',
    table(
      ['revoked', 'revocation + CRL (ms)', 'longest stall (ms)', 'CRL size', 'load average'],
      crlRows,
    ),
    '',
  );
  return { markdown: markdown.join('\n'), results };
}
