import https from 'node:https';
import type { RequestListener, Server } from 'node:http';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { markMtlsSocket } from './faces.js';
import {
  ClientHelloReader,
  DEFAULT_CLIENT_HELLO_LIMITS,
  type ClientHelloLimits,
} from './client-hello.js';
import { createPlainHttpServer } from './plain-http.js';

export interface TlsCredentials {
  /** PEM certificate chain of the server (leaf first). */
  cert: string;
  /** PEM private key of the server certificate. */
  key: string;
}

export interface DualFaceServerOptions {
  credentials: TlsCredentials;
  /** Certificates the mTLS face asks clients to present a certificate from (issuing CA, root). */
  clientCaPem: string[];
  /** `mtls.{host}`: connections naming it are the mTLS face; every other name is public. */
  mtlsHost: string;
  handler: RequestListener;
  /** Origin that a plain-HTTP request on the TLS port is sent to (except the CA's files). */
  httpsOrigin: string;
  /** From accept to a whole ClientHello (absolute); default `DEFAULT_HELLO_TIMEOUT_MS`. */
  helloTimeoutMs?: number;
  helloLimits?: ClientHelloLimits;
  /** Most connections open at once (`PORTAL_MAX_CONNECTIONS`); absent: no cap. */
  maxConnections?: number;
}

/** What the service listens with: this TLS listener, or plain HTTP behind a proxy. */
export interface PortalListener {
  /** The listener: one port, both faces. */
  readonly listener: net.Server;
  listen(port: number, host: string): Promise<void>;
  /** Stops accepting, lets requests in flight finish, then closes what is left after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

export type DualFaceServer = PortalListener;

/**
 * Stops `listener` accepting, closes idle keep-alive connections of `servers` as their requests
 * finish, and cuts whatever is still open after `graceMs`.
 */
export async function closeGracefully(
  listener: net.Server,
  servers: readonly Server[],
  graceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    listener.close(() => {
      resolve();
    });
  });
  const deadline = Date.now() + graceMs;
  const drain = setInterval(() => {
    for (const server of servers) {
      if (Date.now() >= deadline) server.closeAllConnections();
      else server.closeIdleConnections();
    }
  }, 50);
  try {
    await closed;
  } finally {
    clearInterval(drain);
    for (const server of servers) {
      server.closeAllConnections();
      if (server !== listener) server.close();
    }
  }
}

const secureDefaults = { minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] } as const;

/** How long a connection has from accept to a whole ClientHello (and the handshake after it). */
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

/**
 * One TCP listener that reads the ClientHello's server name and hands the connection to one of
 * two HTTPS servers: the public face, which never requests a client certificate, or the mTLS face,
 * which always does (and lets the application decide what an absent or bad one means). Plain HTTP
 * on the same port goes to plain-http.ts (the CA's files, else a redirect to HTTPS).
 *
 * What a connection may cost before it has said who it is: the hello is read incrementally within
 * `DEFAULT_CLIENT_HELLO_LIMITS` and must be whole within `helloTimeoutMs` of accept (an absolute
 * deadline, not an idle one); the TLS handshake after it has as long again (Node's handshake
 * timer, which only the handshake's completion stops). At most `maxConnections` are open at once;
 * the next is closed at accept until one ends.
 */
export function createDualFaceServer(options: DualFaceServerOptions): DualFaceServer {
  const { credentials, clientCaPem, handler } = options;
  const mtlsHost = options.mtlsHost.toLowerCase();
  const helloTimeoutMs = options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS;
  const helloLimits = options.helloLimits ?? DEFAULT_CLIENT_HELLO_LIMITS;
  const handshake = { ...secureDefaults, ...credentials, handshakeTimeout: helloTimeoutMs };

  const publicServer = https.createServer(handshake, handler);
  const mtlsServer = https.createServer(
    { ...handshake, ca: clientCaPem, requestCert: true, rejectUnauthorized: false },
    handler,
  );
  mtlsServer.on('secureConnection', (socket: TLSSocket) => {
    markMtlsSocket(socket);
  });
  for (const server of [publicServer, mtlsServer]) {
    server.on('tlsClientError', (_error, socket) => socket.destroy());
  }
  const plainServer = createPlainHttpServer({
    handler,
    httpsOrigin: options.httpsOrigin,
    requestTimeoutMs: helloTimeoutMs,
  });

  /** Connections whose hello is still awaited: cut at close without waiting for the deadline. */
  const awaitingHello = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
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
      if (hello.kind === 'refused') {
        socket.destroy();
        return;
      }
      socket.pause();
      socket.unshift(Buffer.concat(received));
      if (hello.kind === 'not-tls') {
        plainServer.emit('connection', socket);
        // The HTTP parser reads new bytes from the handle itself; the bytes put back above reach
        // it as 'data' once the socket flows again (on the next tick, before any new bytes).
        socket.resume();
        return;
      }
      const face = hello.serverName === mtlsHost ? mtlsServer : publicServer;
      face.emit('connection', socket);
    }
    socket.on('data', onData);
  });
  if (options.maxConnections !== undefined) listener.maxConnections = options.maxConnections;

  const innerServers = [publicServer, mtlsServer, plainServer];
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
