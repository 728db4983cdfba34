import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openPortal, type Portal } from './portal.js';
import { createPlainListener } from './http/plain-listener.js';
import { createDualFaceServer, type PortalListener } from './tls/dual-face-server.js';
import { loadServerCredentials } from './tls/server-credentials.js';

export interface RunningPortal {
  portal: Portal;
  app: FastifyInstance;
  server: PortalListener;
  /** The port actually bound (differs from the configured one when that was 0). */
  port: number;
  /** Stops accepting, finishes what is in flight, closes the database. */
  close(): Promise<void>;
}

/** One TLS listener for both faces, with the configured or the portal-issued certificate. */
async function builtinTlsListener(portal: Portal, app: FastifyInstance): Promise<PortalListener> {
  const { config } = portal;
  const credentials = await loadServerCredentials(
    {
      names: [config.host, config.mtlsHost],
      tlsDir: config.tlsDir,
      certFile: config.tlsCertFile,
      keyFile: config.tlsKeyFile,
    },
    portal.certificates,
  );
  return createDualFaceServer({
    credentials,
    clientCaPem: [portal.ca.issuingCertificatePem, portal.ca.rootCertificatePem],
    mtlsHost: config.mtlsHost,
    httpsOrigin: config.publicOrigin,
    maxConnections: config.maxConnections,
    handler: (request, response) => {
      app.routing(request, response);
    },
  });
}

/**
 * Start-up (product.md §7): data directory, CA, JWT key, migrations, then the listener: one TLS
 * listener for both faces (built-in), or plain HTTP behind the reverse proxy. The service's
 * entry point and the API tests both use this.
 */
export async function startPortal(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningPortal> {
  const portal = await openPortal(config, { migrate: true });
  try {
    const app = await buildApp(portal, options);
    await app.ready();
    const server =
      config.tlsMode === 'proxy'
        ? createPlainListener(
            (request, response) => {
              app.routing(request, response);
            },
            { maxConnections: config.maxConnections },
          )
        : await builtinTlsListener(portal, app);
    await server.listen(config.port, config.listenAddress);
    const address = server.listener.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    return {
      portal,
      app,
      server,
      port,
      async close() {
        await server.close();
        await app.close();
        await portal.close();
      },
    };
  } catch (error) {
    await portal.close();
    throw error;
  }
}
