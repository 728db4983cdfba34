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
