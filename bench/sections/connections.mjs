// Section 9: one address holding connections (issue 25, finding 3). With a small
// PORTAL_MAX_CONNECTIONS, another caller's health check (a new TLS connection each, from
// 127.0.0.1) is timed while nobody else is connected, while one address (127.0.0.2) holds more
// idle TCP connections than the cap allows, re-opening each one the portal closes, and while
// another (127.0.0.3) holds as many kept-alive TLS connections as the cap, each with a request
// every few seconds, and (issue 36, finding 2) while one address (127.0.0.4), then four
// (127.0.0.5-8), hold more TLS connections than the cap each sending `POST /ca/ocsp` with
// `Content-Length: 9000` and one byte of body. Loopback only; every phase is bounded in time
// and the attackers in count.
import path from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { fmt, loadAverage, percentile, startChild, table } from '../lib/common.mjs';

const MAX_CONNECTIONS = 40;
/** The attack of the finding: 45 idle connections against a cap of 40. */
const UNPROVEN_SOCKETS = 45;
const REOPEN_DELAY_MS = 100;
/** Below Node's keep-alive timeout (5 s), so that the portal itself never closes them. */
const KEEP_ALIVE_EVERY_MS = 3_000;
const PROBE_EVERY_MS = 50;
const PROBE_TIMEOUT_MS = 3_000;
const HEALTH = '/api/v1/healthcheck';

/**
 * @typedef {{ port: number, host: string, chainPem: string }} Server
 */

/**
 * One health check on a new TLS connection from 127.0.0.1.
 * @param {Server} server
 * @returns {Promise<{ ok: boolean, ms: number }>}
 */
function healthCheck(server) {
  const start = performance.now();
  return new Promise((resolve) => {
    const done = (/** @type {boolean} */ ok) => resolve({ ok, ms: performance.now() - start });
    const request = https.request(
      {
        host: '127.0.0.1',
        localAddress: '127.0.0.1',
        port: server.port,
        path: HEALTH,
        servername: server.host,
        headers: { host: `${server.host}:${server.port}` },
        ca: server.chainPem,
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
      },
      (response) => {
        response.resume();
        response.on('end', () => done(response.statusCode === 200));
        response.on('error', () => done(false));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => done(false));
    request.end();
  });
}

/**
 * Health checks every PROBE_EVERY_MS for `ms`, each on its own connection (an open loop: a slow
 * answer does not delay the next check).
 * @param {Server} server @param {number} ms
 */
async function probe(server, ms) {
  /** @type {Promise<{ ok: boolean, ms: number }>[]} */
  const checks = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    checks.push(healthCheck(server));
    await sleep(PROBE_EVERY_MS);
  }
  const results = await Promise.all(checks);
  const answered = results.filter((result) => result.ok).map((result) => result.ms);
  return {
    checks: results.length,
    failed: results.length - answered.length,
    p50: percentile(answered, 50),
    p99: percentile(answered, 99),
  };
}

/**
 * `count` connections from `localAddress`, each opened again REOPEN_DELAY_MS after it closes.
 * @param {number} count
 * @param {() => net.Socket} open a new connection
 */
function holdConnections(count, open) {
  let stopped = false;
  let opened = 0;
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const keep = () => {
    if (stopped) return;
    const socket = open();
    opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (!stopped) setTimeout(keep, REOPEN_DELAY_MS);
    });
  };
  for (let index = 0; index < count; index += 1) keep();
  return {
    get opened() {
      return opened;
    },
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Idle TCP connections that never say a word (no ClientHello). @param {Server} server */
function unprovenAttacker(server) {
  return holdConnections(UNPROVEN_SOCKETS, () =>
    net.connect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.0.2' }),
  );
}

/**
 * As many kept-alive TLS connections as the cap, each asking for the health check every
 * KEEP_ALIVE_EVERY_MS: a unit behind one NAT, or someone imitating one.
 * @param {Server} server
 */
function keptAliveHolder(server) {
  const request = `GET ${HEALTH} HTTP/1.1\r\nHost: ${server.host}:${server.port}\r\n\r\n`;
  return holdConnections(MAX_CONNECTIONS, () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: server.port,
      localAddress: '127.0.0.3',
      servername: server.host,
      ca: server.chainPem,
    });
    socket.on('secureConnect', () => socket.write(request));
    socket.resume();
    const timer = setInterval(() => {
      if (socket.writable) socket.write(request);
    }, KEEP_ALIVE_EVERY_MS);
    socket.on('close', () => clearInterval(timer));
    return socket;
  });
}

/** Connections each holding a slow request, in all (one address, or spread over four). */
const SLOW_SOCKETS = 45;
const SLOW_ADDRESSES = ['127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8'];

/**
 * `count` TLS connections from `localAddress`, each sending a POST that announces 9,000 bytes of
 * body and sends one: the request stays in flight until the portal ends it.
 * @param {Server} server @param {string} localAddress @param {number} count
 */
function slowRequests(server, localAddress, count) {
  const request =
    `POST /ca/ocsp HTTP/1.1\r\nHost: ${server.host}:${server.port}\r\n` +
    'Content-Type: application/ocsp-request\r\nContent-Length: 9000\r\n\r\nA';
  return holdConnections(count, () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: server.port,
      localAddress,
      servername: server.host,
      ca: server.chainPem,
    });
    socket.on('secureConnect', () => socket.write(request));
    socket.resume();
    return socket;
  });
}

/** Several holders as one. @param {ReturnType<typeof holdConnections>[]} holders */
function together(holders) {
  return {
    get opened() {
      return holders.reduce((sum, holder) => sum + holder.opened, 0);
    },
    stop() {
      for (const holder of holders) holder.stop();
    },
  };
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function connectionsSection({ quick, workDir, log }) {
  const phaseMs = quick ? 5_000 : 20_000;
  const settleMs = 2_000;
  const loadBefore = loadAverage();
  const portal = await startChild(new URL('../lib/portal-process.mjs', import.meta.url).pathname, [
    JSON.stringify({
      dataDir: path.join(workDir, 'connections-data'),
      active: 0,
      pending: 0,
      env: { PORTAL_MAX_CONNECTIONS: String(MAX_CONNECTIONS) },
    }),
  ]);
  const server = {
    port: portal.info.port,
    host: portal.info.host,
    chainPem: portal.info.chainPem,
  };
  /** @type {{ phase: string, load: string, opened?: number, checks: number, failed: number, p50: number, p99: number }[]} */
  const phases = [];
  try {
    /** @param {string} phase @param {(() => ReturnType<typeof holdConnections>) | undefined} attack */
    const measure = async (phase, attack) => {
      log(`  ${phase}`);
      const attacker = attack?.();
      if (attacker !== undefined) await sleep(settleMs);
      const figures = await probe(server, phaseMs);
      attacker?.stop();
      phases.push({
        phase,
        load: loadAverage(),
        ...(attacker === undefined ? {} : { opened: attacker.opened }),
        ...figures,
      });
      await sleep(settleMs);
    };
    await measure('nobody else', undefined);
    await measure(`${UNPROVEN_SOCKETS} idle TCP connections from 127.0.0.2`, () =>
      unprovenAttacker(server),
    );
    await measure('nobody else, again', undefined);
    await measure(`${MAX_CONNECTIONS} kept-alive TLS connections from 127.0.0.3`, () =>
      keptAliveHolder(server),
    );
    await measure('nobody else, before the slow requests', undefined);
    await measure(`${SLOW_SOCKETS} slow requests from 127.0.0.4`, () =>
      slowRequests(server, '127.0.0.4', SLOW_SOCKETS),
    );
    const each = Math.ceil(SLOW_SOCKETS / SLOW_ADDRESSES.length);
    await measure(
      `${each * SLOW_ADDRESSES.length} slow requests from 127.0.0.5-8, ${each} each`,
      () => together(SLOW_ADDRESSES.map((address) => slowRequests(server, address, each))),
    );
  } finally {
    await portal.stop();
  }
  const idle = phases.filter((phase) => phase.opened === undefined);
  const idleP99 = Math.max(...idle.map((phase) => phase.p99));
  const rows = phases.map((phase) => [
    phase.phase,
    phase.opened === undefined ? '' : String(phase.opened),
    `${phase.checks - phase.failed}/${phase.checks}`,
    fmt(phase.p50, 1),
    fmt(phase.p99, 1),
    phase.opened === undefined || phase.failed === phase.checks
      ? ''
      : `${fmt(phase.p99 / idleP99, 1)}x`,
    phase.load,
  ]);
  const markdown = [
    '## One address holding connections',
    '',
    `\`PORTAL_MAX_CONNECTIONS=${MAX_CONNECTIONS}\`, ${portal.info.engine}. Another caller's ` +
      `health check on a new TLS connection from 127.0.0.1 every ${PROBE_EVERY_MS} ms for ` +
      `${phaseMs / 1000} s per phase (${PROBE_TIMEOUT_MS / 1000} s without an answer is a ` +
      `failure); the holders re-open a connection ${REOPEN_DELAY_MS} ms after the portal ` +
      `closes it; kept-alive connections ask for the health check every ${KEEP_ALIVE_EVERY_MS / 1000} s; ` +
      'a slow request is `POST /ca/ocsp` with `Content-Length: 9000` and one byte of body. ' +
      'p99 against the highest of the quiet phases (budget: less than 2x).',
    '',
    table(
      [
        'phase',
        'connections opened by the holder',
        'answered',
        'p50 ms',
        'p99 ms',
        'p99 vs quiet',
        'load average after',
      ],
      rows,
    ),
    '',
    `Load average before ${loadBefore}, after ${loadAverage()}.`,
    '',
  ].join('\n');
  return { markdown, results: { maxConnections: MAX_CONNECTIONS, phases } };
}
