import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConnectionShare, type TurnedAwayReason } from './connection-share.js';

// What the share tells of each connection it closes (the metrics count them), on a real TCP
// listener on loopback. The listeners' behaviour with TLS and HTTP: test/connection-share.test.ts.

const opened: { close(): void }[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const thing of opened.splice(0)) thing.close();
});

/** A listener admitting by `limits`; what it was told, and whether each accepted socket stayed. */
async function listening(limits: {
  maxConnections?: number;
  maxUnprovenPerAddress?: number;
  unprovenGraceMs?: number;
}) {
  const told: TurnedAwayReason[] = [];
  const kept: boolean[] = [];
  const share = createConnectionShare({ ...limits, turnedAway: (reason) => told.push(reason) });
  const server = net.createServer((socket) => {
    kept.push(share.admit(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sockets: net.Socket[] = [];
  /** Whether each connection made has been closed by the listener. */
  const closed: boolean[] = [];
  opened.push({
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  });
  const port = (server.address() as net.AddressInfo).port;
  /** One more connection, once the listener has decided on it. */
  const connect = async () => {
    const decided = kept.length;
    const socket = net.connect({ host: '127.0.0.1', port });
    const index = closed.push(false) - 1;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed[index] = true;
    });
    sockets.push(socket);
    while (kept.length === decided) await new Promise((resolve) => setImmediate(resolve));
  };
  return { told, kept, closed, connect };
}

describe('the connection share tells why it closed a connection', () => {
  it('an address over its share of unproven connections', async () => {
    const { told, kept, connect } = await listening({ maxUnprovenPerAddress: 2 });
    for (let index = 0; index < 3; index += 1) await connect();
    expect(kept).toEqual([true, true, false]);
    expect(told).toEqual(['address_share']);
  });

  it('a full pool with nothing idle to close', async () => {
    // Every connection within its grace: none may be closed for the newcomer.
    const { told, kept, connect } = await listening({ maxConnections: 2, unprovenGraceMs: 60_000 });
    for (let index = 0; index < 3; index += 1) await connect();
    expect(kept).toEqual([true, true, false]);
    expect(told).toEqual(['pool_full']);
  });

  it('room made by closing the oldest connection that stayed unproven past its grace', async () => {
    // The share's clock (performance.now) is moved by hand: a slow machine cannot age the
    // second connection past its grace before the last newcomer arrives.
    vi.useFakeTimers({ toFake: ['performance'] });
    const { told, kept, closed, connect } = await listening({
      maxConnections: 2,
      unprovenGraceMs: 100,
    });
    await connect();
    vi.advanceTimersByTime(150);
    await connect();
    await connect();
    expect(kept).toEqual([true, true, true]);
    expect(told).toEqual(['made_room']);
    await expect.poll(() => closed).toEqual([true, false, false]);
    // The second is still within its grace, the third newer: the next newcomer is refused.
    await connect();
    expect(kept).toEqual([true, true, true, false]);
    expect(told).toEqual(['made_room', 'pool_full']);
  });

  it('nothing while every connection is within the limits', async () => {
    const { told, kept, connect } = await listening({
      maxConnections: 3,
      maxUnprovenPerAddress: 3,
    });
    for (let index = 0; index < 3; index += 1) await connect();
    expect(kept).toEqual([true, true, true]);
    expect(told).toEqual([]);
  });
});

/**
 * An HTTP listener admitting by `limits` (as plain-listener.ts does): `POST` requests wait for
 * their whole body, so a connection that sends one byte of it keeps its request in flight; `GET`
 * is answered at once and its connection kept alive (idle).
 */
async function httpListening(limits: {
  maxConnections?: number;
  maxPerAddress?: number;
  unprovenGraceMs?: number;
}) {
  const told: TurnedAwayReason[] = [];
  const share = createConnectionShare({ ...limits, turnedAway: (reason) => told.push(reason) });
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  share.watch(server);
  server.prependListener('connection', (socket: net.Socket) => {
    share.admit(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  const sockets: net.Socket[] = [];
  opened.push({
    close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      server.close();
    },
  });
  /** A connection from `localAddress` that sent `request`, once the server has it (or cut it). */
  const send = async (localAddress: string, request: string) => {
    const before = requests;
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => undefined);
    socket.resume();
    sockets.push(socket);
    socket.write(request);
    await expect.poll(() => requests > before || socket.destroyed).toBe(true);
    return socket;
  };
  const slowPost = 'POST /ca/ocsp HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\nA';
  const get = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
  return {
    told,
    slowPost: (from: string) => send(from, slowPost),
    get: (from: string) => send(from, get),
  };
}

describe('the connection share bounds every connection of an address and cuts slow requests', () => {
  it('refuses an address over its bound of all its connections, requests in flight included', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { told, slowPost } = await httpListening({
      maxConnections: 10,
      maxPerAddress: 2,
      unprovenGraceMs: 100,
    });
    const held = [await slowPost('127.0.0.2'), await slowPost('127.0.0.2')];
    // Its requests past their grace are still not cut for its own newcomer.
    vi.advanceTimersByTime(150);
    const third = await slowPost('127.0.0.2');
    await expect.poll(() => third.destroyed).toBe(true);
    expect(told).toEqual(['address_share']);
    // Another address is still served, and the two requests in flight are not cut.
    const other = await slowPost('127.0.0.3');
    expect(other.destroyed).toBe(false);
    expect(held.map((socket) => socket.destroyed)).toEqual([false, false]);
  });

  it('an address at its bound makes room from its own longest-idle connection', async () => {
    const { told, get } = await httpListening({ maxConnections: 10, maxPerAddress: 2 });
    const held = [await get('127.0.0.2'), await get('127.0.0.2')];
    const third = await get('127.0.0.2');
    await expect.poll(() => held[0]?.destroyed).toBe(true);
    expect([held[1]?.destroyed, third.destroyed]).toEqual([false, false]);
    expect(told).toEqual(['made_room']);
  });

  it('a full pool makes room by closing the slowest request of the address holding most', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { told, slowPost } = await httpListening({ maxConnections: 3, unprovenGraceMs: 100 });
    // The oldest request in flight is the lone address's; the address holding most is 127.0.0.2.
    const lone = await slowPost('127.0.0.3');
    vi.advanceTimersByTime(10);
    const most = [await slowPost('127.0.0.2'), await slowPost('127.0.0.2')];
    vi.advanceTimersByTime(150);
    const newcomer = await slowPost('127.0.0.1');
    await expect.poll(() => most[0]?.destroyed).toBe(true);
    expect([lone.destroyed, most[1]?.destroyed, newcomer.destroyed]).toEqual([false, false, false]);
    expect(told).toEqual(['slow_request']);
  });

  it("a newcomer from an address holding about as many cuts nobody's request", async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { told, slowPost } = await httpListening({ maxConnections: 3, unprovenGraceMs: 100 });
    const held = [
      await slowPost('127.0.0.2'),
      await slowPost('127.0.0.2'),
      await slowPost('127.0.0.3'),
    ];
    vi.advanceTimersByTime(150);
    // 127.0.0.3 holds one, the most any address holds is two: it waits its turn.
    const newcomer = await slowPost('127.0.0.3');
    await expect.poll(() => newcomer.destroyed).toBe(true);
    expect(held.map((socket) => socket.destroyed)).toEqual([false, false, false]);
    expect(told).toEqual(['pool_full']);
  });

  it('never cuts a request still within its grace: the newcomer is refused', async () => {
    const { told, slowPost } = await httpListening({ maxConnections: 2, unprovenGraceMs: 60_000 });
    const held = [await slowPost('127.0.0.2'), await slowPost('127.0.0.2')];
    const newcomer = await slowPost('127.0.0.1');
    await expect.poll(() => newcomer.destroyed).toBe(true);
    expect(held.map((socket) => socket.destroyed)).toEqual([false, false]);
    expect(told).toEqual(['pool_full']);
  });
});
