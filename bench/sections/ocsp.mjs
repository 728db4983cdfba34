// Section 10: the OCSP responder under a flood (issue 25, finding 2). TAK Server asks on every
// client connection, and anyone may ask (plain HTTP, no identity): a flood of OCSP requests must
// not move another caller's p99 by more than 2x, and a cached answer's p50 is budgeted at 2 ms.
import http from 'node:http';
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { fmt, importServer, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { probe } from './isolation.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const LOOPS = 20;
const HEALTH_EVERY_MS = 10;

/**
 * One POST of `body` to `/ca/ocsp` in plain HTTP on `agent`.
 * @param {{ port: number, host: string }} server @param {http.Agent} agent @param {Buffer} body
 * @returns {Promise<{ status: number, ms: number, body: Buffer }>}
 */
function postOcsp(server, agent, body) {
  const start = performance.now();
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/ca/ocsp',
        agent,
        headers: {
          host: server.host,
          'content-type': 'application/ocsp-request',
          'content-length': body.length,
        },
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            ms: performance.now() - start,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on('error', () =>
      resolve({ status: 0, ms: performance.now() - start, body: Buffer.alloc(0) }),
    );
    request.end(body);
  });
}

/**
 * LOOPS loops, each one keep-alive connection sending the same request as soon as the last was
 * answered, until `stop()` or until each has sent `perLoop` (bounded in count and in time), run
 * in a worker thread (ocsp-flood-worker.mjs) so that they do not slow this thread's probe.
 * @param {{ port: number, host: string }} server @param {Buffer} body @param {number} perLoop
 */
function startFlood(server, body, perLoop) {
  const worker = new Worker(new URL('./ocsp-flood-worker.mjs', import.meta.url), {
    workerData: { port: server.port, host: server.host, body, perLoop, loops: LOOPS },
  });
  /** @type {Promise<{ statuses: Record<string, number>, seconds: number }>} */
  const finished = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const { statuses, seconds } = await finished;
      await worker.terminate();
      const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
      return { statuses, seconds, perSecond: answered / seconds };
    },
  };
}

/** @param {string} name @param {number[]} latencies */
function row(name, latencies) {
  return [
    name,
    fmt(percentile(latencies, 50), 2),
    fmt(percentile(latencies, 99), 2),
    fmt(percentile(latencies, 100), 1),
    latencies.length,
  ];
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function ocspSection({ quick, workDir, log }) {
  const phaseMs = quick ? 2_000 : 5_000;
  const rounds = quick ? 1 : 3;
  const perLoop = quick ? 2_000 : 10_000;
  const sequential = quick ? 300 : 2_000;
  const { ocspQuestion, readOcspAnswer } = await importServer('ca/ocsp-check.js');
  const portal = await startChild(portalScript, [
    JSON.stringify({ dataDir: path.join(workDir, 'ocsp'), active: 1_000, pending: 0 }),
  ]);
  const info = portal.info;
  const loadBefore = loadAverage();
  try {
    const issuerPem = /** @type {string} */ (info.chainPem).split(
      /(?<=-----END CERTIFICATE-----\n)/,
    )[0];
    const serial = new X509Certificate(info.member.certPem).serialNumber;
    // As `openssl ocsp` sends it by default: with a nonce.
    const question = ocspQuestion(issuerPem, serial);
    const first = await postOcsp(info, new http.Agent({ keepAlive: false }), question.der);
    // Whether the answer echoes the nonce or not, it must be a good, signed answer.
    const answer = await readOcspAnswer(first.body, question, issuerPem).catch(
      (/** @type {Error} */ error) => ({ status: `refused: ${error.message}` }),
    );
    log(`  ocsp: first answer ${first.status}, ${JSON.stringify(answer.status)}`);

    // One client, one kept-alive connection, one request after the other.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 50; i++) await postOcsp(info, agent, question.der);
    /** @type {number[]} */
    const oneClient = [];
    for (let i = 0; i < sequential; i++)
      oneClient.push((await postOcsp(info, agent, question.der)).ms);
    agent.destroy();

    const healthProbe = {
      name: '`GET /api/v1/healthcheck`',
      server: info,
      target: /** @type {const} */ ({ face: 'public', path: '/api/v1/healthcheck' }),
      everyMs: HEALTH_EVERY_MS,
    };
    await probe([healthProbe], sleep(500));
    /** @type {number[]} */
    const idle = [];
    /** @type {number[]} */
    const flooded = [];
    /** @type {Record<string, number>} */
    const statuses = {};
    /** @type {number[]} */
    const rates = [];
    for (let round = 0; round < rounds; round++) {
      const [quiet] = await probe([healthProbe], sleep(phaseMs));
      idle.push(...(quiet?.latencies ?? []));
      const flood = startFlood(info, question.der, perLoop);
      const stopped = sleep(phaseMs).then(() => flood.stop());
      const [busy] = await probe([healthProbe], stopped);
      const done = await stopped;
      flooded.push(...(busy?.latencies ?? []));
      for (const [status, count] of Object.entries(done.statuses)) {
        statuses[status] = (statuses[status] ?? 0) + count;
      }
      rates.push(done.perSecond);
      log(
        `  ocsp flood round ${round + 1}/${rounds}: ${fmt(done.perSecond, 0)} answers/s (load ${loadAverage()})`,
      );
    }
    const loadAfter = loadAverage();
    const ratio = percentile(flooded, 99) / percentile(idle, 99);
    const results = {
      firstAnswer: answer.status,
      oneClient: {
        p50: percentile(oneClient, 50),
        p99: percentile(oneClient, 99),
        n: oneClient.length,
      },
      idle: { p50: percentile(idle, 50), p99: percentile(idle, 99), n: idle.length },
      flooded: { p50: percentile(flooded, 50), p99: percentile(flooded, 99), n: flooded.length },
      ratio,
      floodPerSecond: rates,
      statuses,
      loadBefore,
      loadAfter,
    };
    const markdown = [
      '## 10. OCSP under a flood (issue 25)',
      '',
      `A portal on SQLite with 1,000 active members; the request asks about one member's key, with a nonce (as \`openssl ocsp\` sends it), POSTed in plain HTTP to \`/ca/ocsp\` on loopback. The first answer read as a relying party reads it: ${JSON.stringify(answer.status)}. One client: ${sequential} requests one after the other on one kept-alive connection (after 50 to warm up). The flood: ${LOOPS} loops in a worker thread of the benchmark (so they do not slow the probe's own event loop), each on its own kept-alive connection sending the same request as soon as the last was answered, at most ${perLoop} each, for ${phaseMs / 1000} s. The other caller: \`GET /api/v1/healthcheck\` over TLS on the public face, an open loop (a request due every ${HEALTH_EVERY_MS} ms on up to 4 connections, latency counted from when it fell due), in ${rounds} round(s) of an idle phase then a flooded phase. Budget: the other caller's p99 moves less than 2x; a cached answer p50 under 2 ms.`,
      '',
      `Load average before: ${loadBefore}; after: ${loadAfter}.`,
      '',
      table(
        ['measure', 'p50 ms', 'p99 ms', 'max ms', 'samples'],
        [
          row('OCSP answer, one client, kept alive', oneClient),
          row('healthcheck, idle', idle),
          row('healthcheck, during the OCSP flood', flooded),
        ],
      ),
      '',
      `Healthcheck p99 flooded / idle: **${fmt(ratio, 2)}x**. The flood: ${rates.map((rate) => fmt(rate, 0)).join(', ')} answers/s (per round); answers ${Object.entries(
        statuses,
      )
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ')}.`,
      '',
    ];
    return { markdown: markdown.join('\n'), results };
  } finally {
    await portal.stop();
  }
}
