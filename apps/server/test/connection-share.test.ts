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
 * The listener's share of connections per address (issue 25, finding 3), over real TLS on
 * loopback: 127.0.0.1 is the caller under test, other 127.0.0.x addresses are the ones holding
 * connections (all of 127/8 is local on Linux).
 */

const MAX_CONNECTIONS = 8;
const MAX_UNPROVEN_PER_ADDRESS = 2;
const HEALTH = '/api/v1/healthcheck';

let portal: TestPortal;
/** Whatever a test opened, closed after it. */
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await until(async () => (await openConnections()) === 0);
});

function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => {
    portal.server.listener.getConnections((error, count) => {
      if (error) reject(error);
      else resolve(count);
    });
  });
}

/** What the metrics counted of connections turned away by `reason`, on the portal's listener. */
async function turnedAway(reason: string): Promise<number> {
  const metric = portal.portal.metrics.registry.getSingleMetric(
    'callsign_portal_connections_turned_away_total',
  );
  const values = (await metric?.get())?.values ?? [];
  return (
    values.find((value) => value.labels.listener === 'portal' && value.labels.reason === reason)
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

/** A health check from `localAddress`; status 0 when the connection was refused or cut. */
function healthCheck(
  localAddress: string,
  agent: https.Agent | false = false,
): Promise<{ status: number; socket: net.Socket | undefined }> {
  return new Promise((resolve) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        localAddress,
        port: portal.port,
        path: HEALTH,
        servername: portal.host,
        headers: { host: `${portal.host}:${portal.port}` },
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

describe.each(testEngines())('on $name', (engine) => {
  portalOnScratchDatabase(engine, async (env) => {
    portal = await startTestPortal({
      env: {
        ...env,
        PORTAL_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        PORTAL_MAX_UNPROVEN_PER_ADDRESS: String(MAX_UNPROVEN_PER_ADDRESS),
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
    const attackers = ['127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8'];
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
    for (let index = 0; index < MAX_CONNECTIONS; index += 1) {
      const { status, socket } = await healthCheck('127.0.0.3', keptAliveClient());
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
    const phones = Array.from({ length: MAX_CONNECTIONS }, () => keptAliveClient());
    const first = [];
    for (const phone of phones) first.push(await healthCheck(nat, phone));
    expect(first.map((answer) => answer.status)).toEqual(Array(MAX_CONNECTIONS).fill(200));

    // Four times the per-address bound, all open at once: each asks again on its own connection.
    for (const [index, phone] of phones.entries()) {
      const again = await healthCheck(nat, phone);
      expect(again.status).toBe(200);
      expect(again.socket).toBeDefined();
      expect(again.socket).toBe(first[index]?.socket);
    }

    // More phones behind the same address than the pool holds: each is served.
    const later: number[] = [];
    for (let index = 0; index < 2 * MAX_CONNECTIONS; index += 1) {
      later.push((await healthCheck(nat, keptAliveClient())).status);
    }
    expect(later).toEqual(Array(2 * MAX_CONNECTIONS).fill(200));
  });
});
