// The OCSP flood of section 10, in a worker thread of its own: the flooding clients then do not
// share an event loop with the other caller whose latency the section measures (on one loop, the
// probe's own latency would include the 20 clients' work, and the figure would blame the portal
// for the benchmark's load). Started and stopped by `startFlood` in ocsp.mjs.
import { randomFillSync } from 'node:crypto';
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ port: number, host: string, body: Uint8Array, perLoop: number, loops: number, randomSerial?: { offset: number, length: number } }} */
const { port, host, body, perLoop, loops, randomSerial } = workerData;
const template = Buffer.from(body);

/** The request to send next: the same one, or with a new random serial (a stranger's). */
function nextPayload() {
  if (randomSerial === undefined) return template;
  const payload = Buffer.from(template);
  const serial = payload.subarray(randomSerial.offset, randomSerial.offset + randomSerial.length);
  randomFillSync(serial);
  // Positive, and no leading zero byte: a serial as DER writes it.
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x10;
  return payload;
}
let running = true;
/** @type {Record<string, number>} */
const statuses = {};

/** @param {http.Agent} agent @returns {Promise<number>} */
function post(agent) {
  const payload = nextPayload();
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/ca/ocsp',
        agent,
        headers: {
          host,
          'content-type': 'application/ocsp-request',
          'content-length': payload.length,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', () => resolve(0));
    request.end(payload);
  });
}

parentPort?.on('message', () => {
  running = false;
});

const started = performance.now();
const agents = Array.from(
  { length: loops },
  () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
);
await Promise.all(
  agents.map(async (agent) => {
    for (let sent = 0; running && sent < perLoop; sent++) {
      const status = await post(agent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }),
);
for (const agent of agents) agent.destroy();
parentPort?.postMessage({ statuses, seconds: (performance.now() - started) / 1000 });
