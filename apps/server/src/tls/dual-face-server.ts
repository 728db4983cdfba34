import https from 'node:https';
import type { RequestListener } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { markMtlsSocket } from './faces.js';
import { DEFAULT_CLIENT_HELLO_LIMITS, type ClientHelloLimits } from './client-hello.js';
import type { ConnectionLimits } from './connection-share.js';
import { createHelloGatedListener } from './hello-gate.js';
import type { PortalListener } from './listener.js';
import { createPlainHttpServer } from './plain-http.js';
import { serverTimeoutOptions, type RequestTimeouts } from './request-timeouts.js';

export interface TlsCredentials {
  /** PEM certificate chain of the server (leaf first). */
  cert: string;
  /** PEM private key of the server certificate. */
  key: string;
}

export interface DualFaceServerOptions {
  credentials: TlsCredentials;
  /**
   * Certificates the mTLS face asks clients to present a certificate from (issuing CA, root), or
   * a function giving them: asked at each mTLS connection, and the face's TLS context re-made
   * when its answer changes (a CA rollover adds an issuing CA while the listener runs).
   */
  clientCaPem: string[] | (() => string[]);
  /** `mtls.{host}`: connections naming it are the mTLS face; every other name is public. */
  mtlsHost: string;
  handler: RequestListener;
  /** Origin that a plain-HTTP request on the TLS port is sent to (except the CA's files). */
  httpsOrigin: string;
  /** From accept to a whole ClientHello (absolute); default `DEFAULT_HELLO_TIMEOUT_MS`. */
  helloTimeoutMs?: number;
  helloLimits?: ClientHelloLimits;
  /** `PORTAL_MAX_CONNECTIONS` and the bounds per address; absent: no limits. */
  connectionLimits?: ConnectionLimits;
  /** How long a request may take to arrive; default `REQUEST_TIMEOUTS`. */
  requestTimeouts?: RequestTimeouts;
}

export { closeGracefully, type PortalListener } from './listener.js';

export type DualFaceServer = PortalListener;

/** What every TLS face of the portal speaks. */
export const secureDefaults = { minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] } as const;

/** How long a connection has from accept to a whole ClientHello (and the handshake after it). */
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

/**
 * One TCP listener that reads the ClientHello's server name and hands the connection to one of
 * two HTTPS servers: the public face, which never requests a client certificate, or the mTLS face,
 * which always does (and lets the application decide what an absent or bad one means). Plain HTTP
 * on the same port goes to plain-http.ts (the CA's files, else a redirect to HTTPS). What a
 * connection may cost before it has said who it is is bounded by the hello gate (hello-gate.ts).
 */
export function createDualFaceServer(options: DualFaceServerOptions): DualFaceServer {
  const { credentials, clientCaPem, handler } = options;
  const mtlsHost = options.mtlsHost.toLowerCase();
  const helloTimeoutMs = options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS;
  const helloLimits = options.helloLimits ?? DEFAULT_CLIENT_HELLO_LIMITS;
  const handshake = {
    ...secureDefaults,
    ...credentials,
    handshakeTimeout: helloTimeoutMs,
    ...serverTimeoutOptions(options.requestTimeouts),
  };

  const clientCaNow = typeof clientCaPem === 'function' ? clientCaPem : () => clientCaPem;
  let clientCa = clientCaNow();
  const mtlsOptions = { ...handshake, requestCert: true, rejectUnauthorized: false };
  const publicServer = https.createServer(handshake, handler);
  const mtlsServer = https.createServer({ ...mtlsOptions, ca: clientCa }, handler);
  const mtlsServerNow = () => {
    const current = clientCaNow();
    if (current !== clientCa) {
      clientCa = current;
      mtlsServer.setSecureContext({ ...mtlsOptions, ca: current });
    }
    return mtlsServer;
  };
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

  return createHelloGatedListener({
    helloTimeoutMs,
    helloLimits,
    connectionLimits: options.connectionLimits,
    innerServers: [publicServer, mtlsServer, plainServer],
    route: (words) => {
      if (words.kind === 'not-tls') return plainServer;
      return words.serverName === mtlsHost ? mtlsServerNow() : publicServer;
    },
  });
}
