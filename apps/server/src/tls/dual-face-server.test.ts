import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_HELLO_LIMITS } from './client-hello.js';
import {
  createDualFaceServer,
  type DualFaceServer,
  type DualFaceServerOptions,
} from './dual-face-server.js';
import { faceOfSocket } from './faces.js';
import { selfSignedServerCredentials } from './server-credentials.testing.js';

const MTLS_HOST = 'mtls.portal.test';
const HTTPS_ORIGIN = 'https://portal.test:8443';

const serverCredentials = selfSignedServerCredentials();
const running: DualFaceServer[] = [];
const clients: net.Socket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(running.splice(0).map((server) => server.close(0)));
});

/** The listener on a free loopback port; its handler answers with the face and the request. */
async function start(
  options: Partial<DualFaceServerOptions> = {},
): Promise<{ server: DualFaceServer; port: number }> {
  const credentials = serverCredentials();
  const server = createDualFaceServer({
    credentials,
    clientCaPem: [credentials.cert],
    mtlsHost: MTLS_HOST,
    httpsOrigin: HTTPS_ORIGIN,
    handler: (request, response) => {
      response.end(`${faceOfSocket(request.socket)} ${request.method} ${request.url}`);
    },
    ...options,
  });
  running.push(server);
  await server.listen(0, '127.0.0.1');
  return { server, port: (server.listener.address() as net.AddressInfo).port };
}

function connect(port: number, localAddress = '127.0.0.1'): net.Socket {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  socket.setNoDelay(true);
  socket.on('error', () => undefined);
  clients.push(socket);
  return socket;
}

/** Milliseconds from now until the peer closes `socket`; Infinity if it is still open in 10 s. */
function closedAfter(socket: net.Socket): Promise<number> {
  const started = Date.now();
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      resolve(Date.now() - started);
    });
  });
  return Promise.race([closed, sleep(10_000, Infinity)]);
}

/** Whether `socket` is closed by the other side within `ms` (or was already). */
async function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.closed) return true;
  return Promise.race([closedAfter(socket).then(() => true), sleep(ms, false)]);
}

function record(payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from([0x16, 0x03, 0x01, payload.length >> 8, payload.length & 0xff]),
    payload,
  ]);
}

/** A ClientHello's handshake header announcing a 16,000-byte hello. */
const LONG_HELLO_HEADER = Buffer.from([0x01, 0x00, 0x3e, 0x80]);
/** A record header announcing a 16,004-byte record, then that hello header: a hello begun. */
const LONG_HELLO_START = Buffer.concat([
  Buffer.from([0x16, 0x03, 0x01, 0x3e, 0x84]),
  LONG_HELLO_HEADER,
]);

/** The first flight of a real Node TLS client naming `servername`, caught by a TCP server. */
async function realClientHello(servername: string): Promise<Buffer> {
  const catcher = net.createServer();
  const caught = new Promise<Buffer>((resolve) => {
    catcher.once('connection', (socket) => {
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => catcher.listen(0, '127.0.0.1', resolve));
  const { port } = catcher.address() as net.AddressInfo;
  const client = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
  client.on('error', () => undefined);
  try {
    return await caught;
  } finally {
    client.destroy();
    catcher.close();
  }
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await sleep(10);
  }
}

function openConnections(server: DualFaceServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.listener.getConnections((error, count) => {
      if (error) reject(error);
      else resolve(count);
    });
  });
}

/** An HTTPS GET over a fresh connection naming `servername`; the handler's answer. */
function httpsGet(
  port: number,
  servername: string,
  agent?: https.Agent,
  localAddress = '127.0.0.1',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      {
        host: '127.0.0.1',
        localAddress,
        port,
        path: '/probe',
        servername,
        rejectUnauthorized: false,
        agent: agent ?? false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve(body);
        });
      },
    );
    request.on('error', reject);
  });
}

interface PlainAnswer {
  status: number;
  location: string | undefined;
  body: string;
}

function plainRequest(port: number, method: string, urlPath: string): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, location: response.headers.location, body });
        });
      },
    );
    request.on('error', reject);
    request.end(method === 'POST' ? 'request' : undefined);
  });
}

describe('the TLS listener', () => {
  it('hands a normal TLS handshake to the face its server name asks for', async () => {
    const { port } = await start();
    expect(await httpsGet(port, 'portal.test')).toBe('public GET /probe');
    expect(await httpsGet(port, MTLS_HOST)).toBe('mtls GET /probe');
  });

  it('cuts hellos dripped a byte at a time at the deadline from accept, though bytes keep coming', async () => {
    const helloTimeoutMs = 400;
    const dripForMs = 3_000;
    const { port } = await start({ helloTimeoutMs });
    const sockets = Array.from({ length: 5 }, () => connect(port));
    const closed = sockets.map((socket) => closedAfter(socket));
    const drips = sockets.map(async (socket) => {
      socket.write(LONG_HELLO_START);
      const until = Date.now() + dripForMs;
      while (!socket.destroyed && Date.now() < until) {
        await sleep(50);
        socket.write(Buffer.from([0x00]));
      }
    });
    const times = await Promise.all(closed);
    await Promise.all(drips);
    for (const ms of times) {
      expect(ms).toBeGreaterThanOrEqual(helloTimeoutMs - 50);
      expect(ms).toBeLessThan(dripForMs / 2);
    }
  });

  it('cuts a handshake that stalls after a whole hello, at the deadline after the hello', async () => {
    const helloTimeoutMs = 400;
    const dripForMs = 3_000;
    const { port } = await start({ helloTimeoutMs });
    const hello = await realClientHello(MTLS_HOST);
    const socket = connect(port);
    const closed = closedAfter(socket);
    socket.write(hello);
    // The start of an application-data record the TLS stack waits for, then a byte at a time.
    socket.write(Buffer.from([0x17, 0x03, 0x03, 0x40, 0x00]));
    const until = Date.now() + dripForMs;
    while (!socket.destroyed && Date.now() < until) {
      await sleep(50);
      socket.write(Buffer.from([0x00]));
    }
    const ms = await closed;
    expect(ms).toBeGreaterThanOrEqual(helloTimeoutMs - 50);
    expect(ms).toBeLessThan(dripForMs / 2);
  });

  it('hangs up on a hello split into more records than any client uses, as they arrive', async () => {
    const { port } = await start({ helloTimeoutMs: 60_000 });
    const { maxRecords } = DEFAULT_CLIENT_HELLO_LIMITS;
    const attacks = {
      // The report's attack: empty handshake records, each its own segment.
      empty: () => record(Buffer.alloc(0)),
      // The same with one byte in each, which the record cap stops.
      oneByte: (index: number) => record(Buffer.from([LONG_HELLO_HEADER[index] ?? 0x00])),
    };
    for (const next of Object.values(attacks)) {
      const socket = connect(port);
      let sent = 0;
      // Well under the old 64 KB wait: each record is 5 or 6 bytes.
      while (!socket.destroyed && sent < 4 * maxRecords) {
        socket.write(next(sent));
        sent += 1;
        await sleep(5);
      }
      expect(await closedWithin(socket, 1_000)).toBe(true);
      expect(sent).toBeLessThan(2 * maxRecords);
    }
  });

  it('refuses connection N+1 while N are open and none is idle, and takes one again after one closes', async () => {
    const maxConnections = 3;
    // Within their grace, the unproven connections held here may not be closed for a newcomer.
    const { server, port } = await start({
      connectionLimits: { maxConnections, unprovenGraceMs: 60_000 },
    });
    const held = [connect(port), connect(port), connect(port)];
    await waitFor(async () => (await openConnections(server)) === maxConnections);

    expect(await closedWithin(connect(port), 2_000)).toBe(true);
    held[0]?.destroy();
    await waitFor(async () => (await openConnections(server)) === maxConnections - 1);
    expect(await httpsGet(port, MTLS_HOST)).toBe('mtls GET /probe');
    expect(held.slice(1).every((socket) => !socket.destroyed)).toBe(true);
  });

  it('makes room by closing an idle kept-alive connection, never one with a request in flight', async () => {
    let release: () => void = () => undefined;
    const { server, port } = await start({
      connectionLimits: { maxConnections: 2, unprovenGraceMs: 60_000 },
      handler: (request, response) => {
        if (request.url === '/hold') release = () => response.end('held');
        else response.end('probe');
      },
    });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const held = new Promise<net.Socket>((resolve) => {
        const request = https.get(
          { host: '127.0.0.1', port, path: '/hold', rejectUnauthorized: false, agent },
          (response) => {
            response.resume();
            response.on('end', () => {
              resolve(request.socket as net.Socket);
            });
          },
        );
        request.on('error', () => undefined);
      });
      const unproven = connect(port);
      await waitFor(async () => (await openConnections(server)) === 2);

      // One busy, one unproven: nothing to close, so the newcomer is refused.
      expect(await closedWithin(connect(port), 2_000)).toBe(true);

      release();
      const kept = await held;
      expect(await httpsGet(port, 'portal.test')).toBe('probe');
      expect(await closedWithin(kept, 2_000)).toBe(true);
      expect(unproven.destroyed).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it("bounds each address's unproven connections, not its proven ones", async () => {
    const { server, port } = await start({
      connectionLimits: { maxConnections: 10, maxUnprovenPerAddress: 2 },
    });
    const other = '127.0.0.2';
    const silent = [connect(port, other), connect(port, other)];
    await waitFor(async () => (await openConnections(server)) === 2);
    expect(await closedWithin(connect(port, other), 2_000)).toBe(true);
    // Another address has a share of its own.
    expect(await httpsGet(port, 'portal.test')).toBe('public GET /probe');

    // A request proves a connection: its place in the share is free again.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      silent[0]?.destroy();
      await waitFor(async () => (await openConnections(server)) === 1);
      expect(await httpsGet(port, 'portal.test', agent, other)).toBe('public GET /probe');
      const third = connect(port, other);
      await waitFor(async () => (await openConnections(server)) === 3);
      expect(third.destroyed).toBe(false);
    } finally {
      agent.destroy();
    }
  });
});

describe('plain HTTP on the TLS port', () => {
  it('answers the CA files (/ca/*) in plain HTTP, as the public face', async () => {
    const { port } = await start();
    for (const [method, urlPath] of [
      ['GET', '/ca/crl.pem'],
      ['GET', '/ca/crl.der'],
      ['GET', '/ca/issuing-ca.der'],
      ['GET', '/ca/ocsp/MEMwQTA%2FMD0wOzAJBgUrDgMCGgUA'],
      ['POST', '/ca/ocsp'],
    ] as const) {
      expect(await plainRequest(port, method, urlPath)).toMatchObject({
        status: 200,
        body: `public ${method} ${urlPath}`,
      });
    }
  });

  it('sends every other request to the https address', async () => {
    const { port } = await start();
    for (const [method, urlPath] of [
      ['GET', '/login'],
      ['GET', '/api/v1/healthcheck'],
      ['POST', '/api/v1/token/code/exchange'],
      ['GET', '/ca'],
      ['GET', '/cax/crl.pem'],
      ['DELETE', '/ca/crl.pem'],
      ['PUT', '/ca/ocsp'],
    ] as const) {
      expect(await plainRequest(port, method, urlPath)).toEqual({
        status: 308,
        location: `${HTTPS_ORIGIN}/`,
        body: `This port speaks HTTPS: ${HTTPS_ORIGIN}/\n`,
      });
    }
  });

  it('cuts a plain-HTTP request dripped a byte at a time', async () => {
    const helloTimeoutMs = 400;
    const { port } = await start({ helloTimeoutMs });
    const socket = connect(port);
    const closed = closedAfter(socket);
    socket.write('GET /ca/crl.pem HTTP/1.1\r\nX-Slow: ');
    const until = Date.now() + 5_000;
    while (!socket.destroyed && Date.now() < until) {
      await sleep(50);
      socket.write('a');
    }
    // Node checks the request timeouts every min(1 s, deadline).
    expect(await closed).toBeLessThan(4 * helloTimeoutMs);
  });
});
