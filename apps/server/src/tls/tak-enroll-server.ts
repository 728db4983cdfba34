import https from 'node:https';
import type { RequestListener } from 'node:http';
import { DEFAULT_CLIENT_HELLO_LIMITS, type ClientHelloLimits } from './client-hello.js';
import {
  DEFAULT_HELLO_TIMEOUT_MS,
  secureDefaults,
  type TlsCredentials,
} from './dual-face-server.js';
import type { ConnectionLimits } from './connection-share.js';
import { createHelloGatedListener } from './hello-gate.js';
import type { PortalListener } from './listener.js';
import { serverTimeoutOptions, type RequestTimeouts } from './request-timeouts.js';

export interface TakEnrollServerOptions {
  /** The certificate for `{takHost}`: the operator's, or one from the portal's CA. */
  credentials: TlsCredentials;
  /** The enrollment face's own application (modules/tak/tak-enrollment-face-routes.ts). */
  handler: RequestListener;
  helloTimeoutMs?: number;
  helloLimits?: ClientHelloLimits;
  /** `PORTAL_MAX_CONNECTIONS` and the bounds per address; absent: no limits. */
  connectionLimits?: ConnectionLimits;
  /** How long a request may take to arrive; default `REQUEST_TIMEOUTS`. */
  requestTimeouts?: RequestTimeouts;
}

/**
 * The TAK enrollment face's listener (`{takHost}:8446`): HTTPS that never asks for a client
 * certificate, behind the same hello gate as the portal's faces. Anything but TLS is hung up on.
 */
export function createTakEnrollServer(options: TakEnrollServerOptions): PortalListener {
  const helloTimeoutMs = options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS;
  const server = https.createServer(
    {
      ...secureDefaults,
      ...options.credentials,
      handshakeTimeout: helloTimeoutMs,
      ...serverTimeoutOptions(options.requestTimeouts),
    },
    options.handler,
  );
  server.on('tlsClientError', (_error, socket) => socket.destroy());
  return createHelloGatedListener({
    helloTimeoutMs,
    helloLimits: options.helloLimits ?? DEFAULT_CLIENT_HELLO_LIMITS,
    connectionLimits: options.connectionLimits,
    innerServers: [server],
    route: (words) => (words.kind === 'hello' ? server : undefined),
  });
}
