import { createServer, type Server } from 'node:http';
import type { ListenAddress } from '../config.js';
import type { PortalMetrics } from './portal-metrics.js';

export interface MetricsListener {
  /** The port bound. */
  port: number;
  close(): Promise<void>;
}

export class MetricsListenerError extends Error {
  override readonly name = 'MetricsListenerError';
}

/**
 * The Prometheus listener: its own plain-HTTP server on `PORTAL_METRICS_ADDRESS`, apart from both
 * faces, answering `GET /metrics` and nothing else. It has no authentication: bind it where only
 * the Prometheus server reaches (loopback by default).
 */
export async function startMetricsListener(
  address: ListenAddress,
  metrics: PortalMetrics,
  onError: (error: unknown) => void,
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, {
          'content-type': metrics.contentType,
          'cache-control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('The metrics could not be collected\n');
      },
    );
  });
  // A scrape is one short request; nothing should hold a connection here for long.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const where = `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
      reject(
        new MetricsListenerError(
          `PORTAL_METRICS_ADDRESS: cannot listen on ${where} (${error.code ?? error.message}); ` +
            'give each instance on a machine its own address, or set it to off',
        ),
      );
    };
    server.once('error', failed);
    server.listen(address.port, address.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = server.address();
  return {
    port: typeof bound === 'object' && bound !== null ? bound.port : address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
