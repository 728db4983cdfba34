import http, { type RequestListener } from 'node:http';
import { closeGracefully, type PortalListener } from '../tls/dual-face-server.js';

/**
 * PORTAL_TLS_MODE=proxy: plain HTTP on a loopback or private address, for the reverse proxy that
 * terminates TLS for both faces (docs/api.md). The face comes from the Host header the proxy
 * passes on, the client certificate from its headers (tls/request-faces.ts). At most
 * `maxConnections` are open at once (`PORTAL_MAX_CONNECTIONS`); absent: no cap.
 */
export function createPlainListener(
  handler: RequestListener,
  options: { maxConnections?: number } = {},
): PortalListener {
  const server = http.createServer(handler);
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
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
