// Requests to a portal (or the bare server) over real TLS: SNI and Host name the face, the
// client certificate or bearer token is the caller's identity.
import https from 'node:https';
import tls from 'node:tls';
import autocannon from 'autocannon';

/**
 * @typedef {{ port: number, host: string, mtlsHost: string, chainPem: string }} Server
 * @typedef {{ certPem: string, keyPem: string }} Key
 * @typedef {{ face: 'public' | 'mtls', path: string, key?: Key, bearer?: string, json?: unknown, method?: 'DELETE' | 'POST' }} Target
 *   `json`: a POST with that body (otherwise a GET); `method`: another method, without a body
 */

/**
 * The calls the API section measures, by short name, with the identities a portal started by
 * lib/portal-process.mjs hands out.
 * @param {{ admin: Key, member: Key, enrollmentJwt?: string }} info
 * @returns {Record<string, Target>}
 */
export function namedTargets(info) {
  return {
    poll: {
      face: 'public',
      path: '/api/v1/enrollment/have-i-been-accepted',
      ...(info.enrollmentJwt ? { bearer: info.enrollmentJwt } : {}),
    },
    'people/list': { face: 'mtls', path: '/api/v1/people/list', key: info.admin },
    'enrollment/list': { face: 'mtls', path: '/api/v1/enrollment/list', key: info.admin },
    'check-auth': { face: 'mtls', path: '/api/v1/check-auth/validuser', key: info.member },
    enduserpfx: { face: 'mtls', path: '/api/v1/enduserpfx/BenchMember', key: info.member },
  };
}

/** @param {Server} server @param {Target} target */
function hostOf(server, target) {
  return target.face === 'mtls' ? server.mtlsHost : server.host;
}

/** @param {Target} target */
function headersOf(target) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (target.bearer) headers.authorization = `Bearer ${target.bearer}`;
  // A state change says JSON even without a body, as the web app's DELETEs do.
  if (target.json !== undefined || target.method !== undefined) {
    headers['content-type'] = 'application/json';
  }
  return headers;
}

/**
 * One request on a new connection.
 * @param {Server} server
 * @param {Target} target
 * @returns {Promise<{ status: number, bytes: number, ms: number, body: Buffer }>}
 */
export function requestOnce(server, target) {
  return get(server, target, {
    agent: false,
    ca: server.chainPem,
    ...(target.key ? { cert: target.key.certPem, key: target.key.keyPem } : {}),
  });
}

/**
 * @param {Server} server
 * @param {Target} target
 * @param {https.RequestOptions} options the agent or the TLS options of a new connection
 * @returns {Promise<{ status: number, bytes: number, ms: number, body: Buffer }>}
 */
function get(server, target, options) {
  const servername = hostOf(server, target);
  const payload = target.json === undefined ? undefined : JSON.stringify(target.json);
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: target.method ?? (payload === undefined ? 'GET' : 'POST'),
        path: target.path,
        servername,
        headers: { host: `${servername}:${server.port}`, ...headersOf(target) },
        ...options,
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            bytes: body.length,
            ms: performance.now() - start,
            body,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * A keep-alive agent for timed requests on up to `sockets` connections (1: sequential requests
 * on one connection); requests beyond them wait in the agent.
 * @param {Server} server
 * @param {Target} target
 * @param {number} [sockets]
 */
export function pooledClient(server, target, sockets = 1) {
  const servername = hostOf(server, target);
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: sockets,
    ca: server.chainPem,
    servername,
    ...(target.key ? { cert: target.key.certPem, key: target.key.keyPem } : {}),
  });
  return {
    /** @returns {Promise<{ status: number, bytes: number, ms: number }>} */
    get: () => get(server, target, { agent }),
    close() {
      agent.destroy();
    },
  };
}

/**
 * A keep-alive agent for sequential timed requests on one connection.
 * @param {Server} server
 * @param {Target} target
 */
export function sequentialClient(server, target) {
  return pooledClient(server, target, 1);
}

/**
 * autocannon against one target over keep-alive connections.
 * @param {Server} server
 * @param {Target} target
 * @param {{ connections: number, duration: number }} load
 */
export async function cannon(server, target, load) {
  const servername = hostOf(server, target);
  const result = await autocannon({
    url: `https://127.0.0.1:${server.port}${target.path}`,
    connections: load.connections,
    duration: load.duration,
    servername,
    headers: { host: `${servername}:${server.port}`, ...headersOf(target) },
    tlsOptions: target.key ? { cert: target.key.certPem, key: target.key.keyPem } : {},
  });
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    mean: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * New TLS connection per request (full handshake, no session resumption), `concurrency` loops
 * for `durationMs`.
 * @param {Server} server
 * @param {Target} target
 * @param {{ concurrency: number, durationMs: number }} load
 */
export async function handshakeLoop(server, target, load) {
  const servername = hostOf(server, target);
  const requestText =
    `GET ${target.path} HTTP/1.1\r\nHost: ${servername}:${server.port}\r\nConnection: close\r\n` +
    Object.entries(headersOf(target))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  /** @type {number[]} */
  const latencies = [];
  let failures = 0;
  const deadline = performance.now() + load.durationMs;
  const once = () =>
    new Promise((resolve) => {
      const start = performance.now();
      let head = '';
      const socket = tls.connect({
        host: '127.0.0.1',
        port: server.port,
        servername,
        ca: server.chainPem,
        ...(target.key ? { cert: target.key.certPem, key: target.key.keyPem } : {}),
      });
      socket.on('secureConnect', () => socket.write(requestText));
      socket.on('data', (chunk) => {
        if (head.length < 16) head += chunk.toString('latin1');
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (head.startsWith('HTTP/1.1 200')) latencies.push(performance.now() - start);
        else failures++;
        resolve(undefined);
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: load.concurrency }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / seconds, latencies, failures };
}
