import https from 'node:https';
import type { RequestListener, Server } from 'node:http';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { markMtlsSocket } from './faces.js';
import { MAX_CLIENT_HELLO_BYTES, readClientHello } from './client-hello.js';

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
  /** Origin that a plain-HTTP request on the TLS port is sent to. */
  httpsOrigin: string;
  helloTimeoutMs?: number;
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

/** Plain HTTP sent to the TLS port: point the person at the https address instead of hanging up. */
function redirectPlainHttp(socket: net.Socket, httpsOrigin: string): void {
  const body = `This port speaks HTTPS: ${httpsOrigin}/\n`;
  socket.end(
    `HTTP/1.1 308 Permanent Redirect\r\nLocation: ${httpsOrigin}/\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * One TCP listener that reads the ClientHello's server name and hands the connection to one of
 * two HTTPS servers: the public face, which never requests a client certificate, or the mTLS face,
 * which always does (and lets the application decide what an absent or bad one means).
 */
export function createDualFaceServer(options: DualFaceServerOptions): DualFaceServer {
  const { credentials, clientCaPem, handler } = options;
  const mtlsHost = options.mtlsHost.toLowerCase();
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;

  const publicServer = https.createServer({ ...secureDefaults, ...credentials }, handler);
  const mtlsServer = https.createServer(
    {
      ...secureDefaults,
      ...credentials,
      ca: clientCaPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    handler,
  );
  mtlsServer.on('secureConnection', (socket: TLSSocket) => {
    markMtlsSocket(socket);
  });
  for (const server of [publicServer, mtlsServer]) {
    server.on('tlsClientError', (_error, socket) => socket.destroy());
  }

  const listener = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    socket.setTimeout(helloTimeoutMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const hello = readClientHello(buffered);
      if (hello.kind === 'incomplete' && buffered.length < MAX_CLIENT_HELLO_BYTES) return;
      socket.removeListener('data', onData);
      socket.setTimeout(0);
      if (hello.kind === 'not-tls') {
        redirectPlainHttp(socket, options.httpsOrigin);
        return;
      }
      socket.pause();
      socket.unshift(buffered);
      const face =
        hello.kind === 'hello' && hello.serverName === mtlsHost ? mtlsServer : publicServer;
      face.emit('connection', socket);
    };
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
          publicServer.emit('listening');
          mtlsServer.emit('listening');
          resolve();
        });
      });
    },
    close(graceMs = 10_000) {
      return closeGracefully(listener, [publicServer, mtlsServer], graceMs);
    },
  };
}
