import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { PortalListener } from '../tls/listener.js';
import { createPlainListener } from './plain-listener.js';

const running: PortalListener[] = [];
const opened: { destroy(): void }[] = [];

afterEach(async () => {
  for (const item of opened.splice(0)) item.destroy();
  await Promise.all(running.splice(0).map((listener) => listener.close(0)));
});

async function start(limits: Parameters<typeof createPlainListener>[1]): Promise<number> {
  const listener = createPlainListener((_request, response) => response.end('ok'), limits);
  running.push(listener);
  await listener.listen(0, '127.0.0.1');
  return (listener.listener.address() as net.AddressInfo).port;
}

function connect(port: number, localAddress: string): net.Socket {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  opened.push(socket);
  return socket;
}

async function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.closed) return true;
  const closed = new Promise<boolean>((resolve) => {
    socket.once('close', () => {
      resolve(true);
    });
  });
  return Promise.race([closed, sleep(ms, false)]);
}

/** A GET from `localAddress`; its status (0 when the connection was cut) and its socket. */
function get(
  port: number,
  localAddress: string,
  agent: http.Agent | false = false,
): Promise<{ status: number; socket: net.Socket | null }> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, localAddress, agent }, (response) => {
      response.resume();
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, socket: request.socket });
      });
    });
    request.on('error', () => {
      resolve({ status: 0, socket: null });
    });
  });
}

describe('the plain listener (behind a proxy)', () => {
  it('keeps the same share as the TLS listener: unproven per address, idle ones make room', async () => {
    const port = await start({
      maxConnections: 3,
      maxUnprovenPerAddress: 1,
      unprovenGraceMs: 60_000,
    });
    const silent = connect(port, '127.0.0.2');
    await sleep(50);
    expect(await closedWithin(connect(port, '127.0.0.2'), 2_000)).toBe(true);
    expect(silent.destroyed).toBe(false);

    const agents = [new http.Agent({ keepAlive: true }), new http.Agent({ keepAlive: true })];
    opened.push(...agents);
    const first = await get(port, '127.0.0.3', agents[0]);
    const second = await get(port, '127.0.0.3', agents[1]);
    expect([first.status, second.status]).toEqual([200, 200]);

    // The pool is full (one unproven, two idle): the longest idle one makes room.
    expect((await get(port, '127.0.0.1')).status).toBe(200);
    expect(first.socket === null ? false : await closedWithin(first.socket, 2_000)).toBe(true);
    expect(second.socket?.destroyed).toBe(false);
  });
});
