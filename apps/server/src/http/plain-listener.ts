import http, { type RequestListener } from 'node:http';
import { createConnectionShare, type ConnectionLimits } from '../tls/connection-share.js';
import { closeGracefully, type PortalListener } from '../tls/dual-face-server.js';
import { serverTimeoutOptions, type RequestTimeouts } from '../tls/request-timeouts.js';

/**
 * PORTAL_TLS_MODE=proxy: plain HTTP on a loopback or private address, for the reverse proxy that
 * terminates TLS for both faces (docs/api.md). The face comes from the Host header the proxy
 * passes on, the client certificate from its headers (tls/request-faces.ts). Which connections
 * are kept is the same rule as the TLS listener's (tls/connection-share.ts).
 */
export function createPlainListener(
  handler: RequestListener,
  connectionLimits: ConnectionLimits = {},
  requestTimeouts?: RequestTimeouts,
): PortalListener {
  const server = http.createServer(serverTimeoutOptions(requestTimeouts), handler);
  const share = createConnectionShare(connectionLimits);
  share.watch(server);
  // Before the HTTP server sets the connection up: a connection refused here is never read.
  server.prependListener('connection', (socket) => {
    share.admit(socket);
  });
  return {
    listener: server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    close(graceMs = 10_000) {
      return closeGracefully(server, [server], graceMs);
    },
  };
}
