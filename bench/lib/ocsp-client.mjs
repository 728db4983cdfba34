// The OCSP requests of sections 10 and 15: one POST, a flood in a worker thread, the portal's
// count of signatures.
import http from 'node:http';
import { floodInWorker, fmt, percentile } from './common.mjs';

/**
 * One POST of `body` to `/ca/ocsp` in plain HTTP on `agent`.
 * @param {{ port: number, host: string }} server @param {http.Agent} agent @param {Buffer} body
 * @returns {Promise<{ status: number, ms: number, body: Buffer }>}
 */
export function postOcsp(server, agent, body) {
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
 * `loops` loops, each one keep-alive connection sending the same request as soon as the last was
 * answered, until `stop()` or until each has sent `perLoop` (bounded in count and in time), run
 * in a worker thread (ocsp-flood-worker.mjs) so that they do not slow this thread's probe.
 * With `randomSerial`, those bytes of `body` (a serial's) are random in each request.
 * @param {{ port: number, host: string }} server @param {Buffer} body @param {number} perLoop
 * @param {number} loops @param {{ offset: number, length: number }} [randomSerial]
 */
export function startFlood(server, body, perLoop, loops, randomSerial) {
  /** @type {{ stop: () => Promise<{ statuses: Record<string, number>, seconds: number }> }} */
  const flood = floodInWorker(new URL('../sections/ocsp-flood-worker.mjs', import.meta.url), {
    port: server.port,
    host: server.host,
    body,
    perLoop,
    loops,
    randomSerial,
  });
  return {
    async stop() {
      const { statuses, seconds } = await flood.stop();
      const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
      return { statuses, seconds, answered, perSecond: answered / seconds };
    },
  };
}

/**
 * The portal's count of OCSP answers it signed, from its Prometheus listener.
 * @param {{ metricsPort: number }} info
 */
export async function signaturesSoFar(info) {
  const response = await fetch(`http://127.0.0.1:${info.metricsPort}/metrics`);
  const text = await response.text();
  const line = text.split('\n').find((l) => l.startsWith('callsign_portal_ocsp_signatures_total '));
  if (line === undefined)
    throw new Error('the portal reports no callsign_portal_ocsp_signatures_total');
  return Number(line.split(' ')[1]);
}

/**
 * A table row: name, p50 / p99 / max in ms, samples.
 * @param {string} name @param {number[]} latencies
 */
export function latencyRow(name, latencies) {
  return [
    name,
    fmt(percentile(latencies, 50), 2),
    fmt(percentile(latencies, 99), 2),
    fmt(percentile(latencies, 100), 1),
    latencies.length,
  ];
}
