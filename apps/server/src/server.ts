import { X509Certificate } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openPortal, type Portal } from './portal.js';
import { createPlainListener } from './http/plain-listener.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import type { ScrapeProbes } from './metrics/portal-metrics.js';
import { countEnrollmentsByState } from './modules/enrollment/service.js';
import { createDualFaceServer, type PortalListener } from './tls/dual-face-server.js';
import { loadServerCredentials } from './tls/server-credentials.js';

export interface RunningPortal {
  portal: Portal;
  app: FastifyInstance;
  server: PortalListener;
  /** The port actually bound (differs from the configured one when that was 0). */
  port: number;
  /** The Prometheus listener; undefined when PORTAL_METRICS_ADDRESS is off. */
  metrics: MetricsListener | undefined;
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

/** What the metrics read from the database and the CA when Prometheus scrapes. */
function scrapeProbes(portal: Portal): ScrapeProbes {
  const { database, certificates, ca, keyPool } = portal;
  return {
    enrollmentsByState: () => countEnrollmentsByState(database.db),
    currentCrl: () => certificates.currentCrl(),
    caCertificates: [
      { ca: 'root', notAfter: new Date(new X509Certificate(ca.rootCertificatePem).validTo) },
      { ca: 'issuing', notAfter: new Date(new X509Certificate(ca.issuingCertificatePem).validTo) },
    ],
    ...(database.poolUsage === undefined ? {} : { pool: database.poolUsage }),
    ...(keyPool === undefined ? {} : { keyPool: () => keyPool.available }),
  };
}

/** The Prometheus listener, apart from both faces, when PORTAL_METRICS_ADDRESS is not off. */
async function startMetrics(portal: Portal, app: FastifyInstance) {
  const address = portal.config.metricsAddress;
  if (address === undefined) return undefined;
  portal.metrics.watch(scrapeProbes(portal));
  portal.metrics.collectProcessMetrics();
  return startMetricsListener(address, portal.metrics, (error) => {
    app.log.error({ err: error }, 'metrics: a scrape failed');
  });
}

/**
 * Start-up (docs/deployment.md): data directory, CA, JWT key, migrations, then the listener: one
 * TLS listener for both faces (built-in), or plain HTTP behind the reverse proxy. The service's
 * entry point and the API tests both use this.
 */
export async function startPortal(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningPortal> {
  const portal = await openPortal(config, { migrate: true, keyPool: true });
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
    let metrics: MetricsListener | undefined;
    try {
      metrics = await startMetrics(portal, app);
    } catch (error) {
      await server.close();
      throw error;
    }
    const address = server.listener.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    return {
      portal,
      app,
      server,
      port,
      metrics,
      async close() {
        await server.close();
        await metrics?.close();
        await app.close();
        await portal.close();
      },
    };
  } catch (error) {
    await portal.close();
    throw error;
  }
}
