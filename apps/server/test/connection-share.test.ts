import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { testEngines } from '../src/db/test-engines.testing.js';
import { UNPROVEN_GRACE_MS } from '../src/tls/connection-share.js';
import { portalOnScratchDatabase } from './support/portal-on-engine.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

/**
 * The listener's share of connections per address (issue 25, finding 3; issue 36, finding 2),
 * over real TLS on loopback: 127.0.0.1 is the caller under test, other 127.0.0.x addresses are
 * the ones holding connections (all of 127/8 is local on Linux).
 */

const MAX_CONNECTIONS = 16;
const MAX_UNPROVEN_PER_ADDRESS = 2;
const MAX_CONNECTIONS_PER_ADDRESS = 8;
const HEALTH = '/api/v1/healthcheck';

let portal: TestPortal;
/** Whatever a test opened, closed after it. */
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await until(async () => (await openConnections()) === 0);
  await until(async () => (await openConnections('tak-enroll')) === 0);
});

function openConnections(listener: 'portal' | 'tak-enroll' = 'portal'): Promise<number> {
  const server = listener === 'portal' ? portal.server : portal.takEnroll?.server;
  return new Promise((resolve, reject) => {
    if (server === undefined) {
      reject(new Error('the TAK enrollment face is off'));
      return;
    }
    server.listener.getConnections((error, count) => {
      if (error) reject(error);
      else resolve(count);
    });
  });
}

/** What the metrics counted of connections turned away by `reason`, on `listener`. */
async function turnedAway(reason: string, listener = 'portal'): Promise<number> {
  const metric = portal.portal.metrics.registry.getSingleMetric(
    'callsign_portal_connections_turned_away_total',
  );
  const values = (await metric?.get())?.values ?? [];
  return (
    values.find((value) => value.labels.listener === listener && value.labels.reason === reason)
      ?.value ?? Number.NaN
  );
}

async function until(condition: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** Where a request goes: the port and the name (SNI and Host) of a face. */
interface Face {
  port: number;
  name: string;
}
const publicFace = (): Face => ({ port: portal.port, name: portal.host });
const mtlsFace = (): Face => ({ port: portal.port, name: portal.config.mtlsHost });
const takEnrollFace = (): Face => ({
  port: portal.takEnroll?.port ?? Number.NaN,
  name: portal.config.takHost,
});

/** A health check from `localAddress`; status 0 when the connection was refused or cut. */
function healthCheck(
  localAddress: string,
  agent: https.Agent | false = false,
  face: Face = publicFace(),
  path = HEALTH,
): Promise<{ status: number; socket: net.Socket | undefined }> {
  return new Promise((resolve) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        localAddress,
        port: face.port,
        path,
        servername: face.name,
        headers: { host: `${face.name}:${face.port}` },
        ca: portal.portal.ca.chainPem,
        agent,
        timeout: 5_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          // The request's: a kept-alive response lets go of its socket when it ends.
          resolve({ status: response.statusCode ?? 0, socket: request.socket ?? undefined });
        });
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      resolve({ status: 0, socket: undefined });
    });
    request.end();
  });
}

/** A phone: one kept-alive connection, used for each of its requests. */
function keptAliveClient(): https.Agent {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  cleanups.push(() => {
    agent.destroy();
  });
  return agent;
}

/** `count` connections from `localAddress` made by `open`, each opened again when it closes. */
function holdConnections(count: number, open: () => net.Socket): void {
  let stopped = false;
  const sockets = new Set<net.Socket>();
  const keep = () => {
    if (stopped) return;
    const socket = open();
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      setTimeout(keep, 10);
    });
  };
  for (let index = 0; index < count; index += 1) keep();
  cleanups.push(() => {
    stopped = true;
    for (const socket of sockets) socket.destroy();
  });
}

/**
 * A TLS connection from `localAddress` to `face` that sends a POST announcing a 9,000-byte body
 * and then one byte of it (issue 36, finding 2): its request stays in flight.
 */
function slowPost(localAddress: string, face: Face, path: string): net.Socket {
  const socket = tls.connect({
    socket: net.connect({ host: '127.0.0.1', port: face.port, localAddress }),
    servername: face.name,
    rejectUnauthorized: false,
  });
  socket.on('secureConnect', () => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${face.name}:${String(face.port)}\r\n` +
        'Content-Type: application/ocsp-request\r\nContent-Length: 9000\r\n\r\nA',
    );
  });
  socket.resume();
  return socket;
}

describe.each(testEngines())('on $name', (engine) => {
  portalOnScratchDatabase(engine, async (env) => {
    portal = await startTestPortal({
      env: {
        ...env,
        PORTAL_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        PORTAL_MAX_UNPROVEN_PER_ADDRESS: String(MAX_UNPROVEN_PER_ADDRESS),
        PORTAL_MAX_CONNECTIONS_PER_ADDRESS: String(MAX_CONNECTIONS_PER_ADDRESS),
      },
    });
    return portal;
  });

  it("one address holding idle connections, re-opened when closed, does not stop another's health check", async () => {
    const attacker = '127.0.0.2';
    const shareBefore = await turnedAway('address_share');
    // Connections that never say hello, and TLS connections that never send a request.
    holdConnections(MAX_CONNECTIONS, () =>
      net.connect({ host: '127.0.0.1', port: portal.port, localAddress: attacker }),
    );
    holdConnections(MAX_CONNECTIONS, () =>
      tls.connect({
        socket: net.connect({ host: '127.0.0.1', port: portal.port, localAddress: attacker }),
        servername: portal.host,
        ca: portal.portal.ca.chainPem,
      }),
    );
    await sleep(500);

    const statuses: number[] = [];
    for (let check = 0; check < 5; check += 1) {
      statuses.push((await healthCheck('127.0.0.1')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // The attacker's extra connections were counted for the operator to see.
    expect(await turnedAway('address_share')).toBeGreaterThan(shareBefore);
  });

  it('serves a member when a few addresses fill the pool with silent connections, once those are past their grace', async () => {
    const madeRoomBefore = await turnedAway('made_room');
    const attackers = Array.from(
      { length: MAX_CONNECTIONS / MAX_UNPROVEN_PER_ADDRESS },
      (_, index) => `127.0.1.${String(index + 1)}`,
    );
    // Each within its share, together the whole pool: connections that never say hello, opened
    // again as soon as they are closed.
    for (const attacker of attackers) {
      holdConnections(MAX_UNPROVEN_PER_ADDRESS, () =>
        net.connect({ host: '127.0.0.1', port: portal.port, localAddress: attacker }),
      );
    }
    await until(async () => (await openConnections()) === MAX_CONNECTIONS);
    await sleep(UNPROVEN_GRACE_MS + 200);

    expect((await healthCheck('127.0.0.1')).status).toBe(200);
    expect(await turnedAway('made_room')).toBeGreaterThan(madeRoomBefore);
  });

  it('serves a new client when the pool is full of idle kept-alive connections, closing the oldest idle one', async () => {
    const madeRoomBefore = await turnedAway('made_room');
    const held: net.Socket[] = [];
    // Two addresses, each holding as many as its bound allows.
    for (let index = 0; index < MAX_CONNECTIONS; index += 1) {
      const address = index < MAX_CONNECTIONS_PER_ADDRESS ? '127.0.0.3' : '127.0.0.13';
      const { status, socket } = await healthCheck(address, keptAliveClient());
      expect(status).toBe(200);
      if (socket !== undefined) held.push(socket);
    }
    await until(async () => (await openConnections()) === MAX_CONNECTIONS);

    expect((await healthCheck('127.0.0.1')).status).toBe(200);
    await until(async () => Promise.resolve(held[0]?.destroyed === true));
    expect(held.map((socket) => socket.destroyed)).toEqual([
      true,
      ...Array<boolean>(MAX_CONNECTIONS - 1).fill(false),
    ]);
    expect(await turnedAway('made_room')).toBe(madeRoomBefore + 1);
  });

  it('keeps many proven connections from one address (a unit behind one NAT) and serves more phones behind it', async () => {
    const nat = '127.0.0.4';
    const phones = Array.from({ length: MAX_CONNECTIONS_PER_ADDRESS }, () => keptAliveClient());
    const first = [];
    for (const phone of phones) first.push(await healthCheck(nat, phone));
    expect(first.map((answer) => answer.status)).toEqual(
      Array(MAX_CONNECTIONS_PER_ADDRESS).fill(200),
    );

    // Four times the unproven bound, all open at once: each asks again on its own connection.
    for (const [index, phone] of phones.entries()) {
      const again = await healthCheck(nat, phone);
      expect(again.status).toBe(200);
      expect(again.socket).toBeDefined();
      expect(again.socket).toBe(first[index]?.socket);
    }

    // More phones behind the same address than the pool holds: each is served (the address's
    // own longest-idle connection makes room for the next).
    const later: number[] = [];
    for (let index = 0; index < 2 * MAX_CONNECTIONS; index += 1) {
      later.push((await healthCheck(nat, keptAliveClient())).status);
    }
    expect(later).toEqual(Array(2 * MAX_CONNECTIONS).fill(200));
  });
  it.each(['public', 'mtls'] as const)(
    "one address holding slow requests, re-opened when closed, does not stop another's health check on the %s face",
    async (faceName) => {
      const face = faceName === 'public' ? publicFace() : mtlsFace();
      const shareBefore = await turnedAway('address_share');
      holdConnections(3 * MAX_CONNECTIONS, () => slowPost('127.0.0.20', face, '/ca/ocsp'));
      // It holds as many as its bound allows and has been refused more (or, unbounded, the pool).
      await until(async () => {
        const open = await openConnections();
        const refused = (await turnedAway('address_share')) > shareBefore;
        return open === MAX_CONNECTIONS || (open >= MAX_CONNECTIONS_PER_ADDRESS && refused);
      });

      const statuses: number[] = [];
      for (let check = 0; check < 5; check += 1) {
        statuses.push((await healthCheck('127.0.0.1', false, face)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      expect(await turnedAway('address_share')).toBeGreaterThan(shareBefore);
    },
  );

  it('serves a member when several addresses fill the pool with slow requests, cutting the slowest of the address holding most', async () => {
    const slowBefore = await turnedAway('slow_request');
    const holders = { '127.0.0.21': MAX_CONNECTIONS_PER_ADDRESS, '127.0.0.22': 4, '127.0.0.23': 4 };
    for (const [address, count] of Object.entries(holders)) {
      holdConnections(count, () => slowPost(address, publicFace(), '/ca/ocsp'));
    }
    await until(async () => (await openConnections()) === MAX_CONNECTIONS);

    // Refused while every request is within its grace, served once the slowest may be cut.
    await until(async () => (await healthCheck('127.0.0.1')).status === 200, 15_000);
    expect(await turnedAway('slow_request')).toBeGreaterThan(slowBefore);
  });

  it("one address holding slow requests on the TAK enrollment face does not stop another's call there", async () => {
    const face = takEnrollFace();
    const shareBefore = await turnedAway('address_share', 'tak-enroll');
    holdConnections(3 * MAX_CONNECTIONS, () => slowPost('127.0.0.24', face, '/oauth/token'));
    await until(async () => {
      const open = await openConnections('tak-enroll');
      const refused = (await turnedAway('address_share', 'tak-enroll')) > shareBefore;
      return open === MAX_CONNECTIONS || (open >= MAX_CONNECTIONS_PER_ADDRESS && refused);
    });

    const statuses: number[] = [];
    for (let check = 0; check < 3; check += 1) {
      statuses.push((await healthCheck('127.0.0.1', false, face, '/Marti/api/tls/config')).status);
    }
    // No login: refused, but answered.
    expect(statuses).toEqual([401, 401, 401]);
  });
});
