import type { Server } from 'node:http';
import net from 'node:net';
import { ClientHelloReader, type ClientHelloLimits } from './client-hello.js';
import { createConnectionShare, type ConnectionLimits } from './connection-share.js';
import { closeGracefully, type PortalListener } from './listener.js';

/** What a connection said before any TLS is spoken: its hello's server name, or not TLS at all. */
export type FirstWords = { kind: 'not-tls' } | { kind: 'hello'; serverName: string | undefined };

export interface HelloGateOptions {
  /** From accept to a whole ClientHello (absolute), and as long again for the handshake. */
  helloTimeoutMs: number;
  helloLimits: ClientHelloLimits;
  /** The pool of connections and each address's share of it (connection-share.ts). */
  connectionLimits?: ConnectionLimits | undefined;
  /** The servers `route` hands connections to; they never listen themselves. */
  innerServers: readonly Server[];
  /** The server a connection goes to, or undefined to hang up. */
  route(words: FirstWords): Server | undefined;
}

/**
 * A TCP listener that reads each connection's first bytes (its ClientHello) before handing it to
 * one of `innerServers`, and bounds what a connection may cost before it has said who it is: the
 * hello is read incrementally within `helloLimits` and must be whole within `helloTimeoutMs` of
 * accept (an absolute deadline, not an idle one); the TLS handshake after it has as long again
 * (the inner server's handshake timer). Which connections are kept at all is the connection
 * share's rule (connection-share.ts), applied at accept.
 */
export function createHelloGatedListener(options: HelloGateOptions): PortalListener {
  const { helloTimeoutMs, helloLimits, innerServers } = options;
  /** Connections whose hello is still awaited: cut at close without waiting for the deadline. */
  const awaitingHello = new Set<net.Socket>();
  const share = createConnectionShare(options.connectionLimits ?? {});
  for (const server of innerServers) share.watch(server);
  const listener = net.createServer((socket) => {
    if (!share.admit(socket)) return;
    const reader = new ClientHelloReader(helloLimits);
    const received: Buffer[] = [];
    awaitingHello.add(socket);
    const deadline = setTimeout(() => socket.destroy(), helloTimeoutMs);
    const stopWaiting = () => {
      clearTimeout(deadline);
      awaitingHello.delete(socket);
      socket.removeListener('data', onData);
    };
    socket.once('close', stopWaiting);
    socket.on('error', () => socket.destroy());
    function onData(chunk: Buffer) {
      received.push(chunk);
      const hello = reader.push(chunk);
      if (hello.kind === 'incomplete') return;
      stopWaiting();
      const server = hello.kind === 'refused' ? undefined : options.route(hello);
      if (server === undefined) {
        socket.destroy();
        return;
      }
      socket.pause();
      socket.unshift(Buffer.concat(received));
      server.emit('connection', socket);
      // A plain HTTP parser reads new bytes from the handle itself; the bytes put back above
      // reach it as 'data' once the socket flows again (on the next tick, before any new bytes).
      if (hello.kind === 'not-tls') socket.resume();
    }
    socket.on('data', onData);
  });

  return {
    listener,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, host, () => {
          listener.off('error', reject);
          // The inner servers never listen themselves; Node sets up their connection tracking
          // (request and header timeouts, idle closing) on 'listening', so announce it for them.
          for (const server of innerServers) server.emit('listening');
          resolve();
        });
      });
    },
    close(graceMs = 10_000) {
      for (const socket of awaitingHello) socket.destroy();
      return closeGracefully(listener, innerServers, graceMs);
    },
  };
}
