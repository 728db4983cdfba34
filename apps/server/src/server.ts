import type { IncomingMessage, ServerResponse } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openPortal, type Portal } from './portal.js';
import { createPlainListener } from './http/plain-listener.js';
import { buildTakEnrollApp } from './modules/tak/tak-enrollment-face-routes.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import type { PortalListenerName, ScrapeProbes } from './metrics/portal-metrics.js';
import { countEnrollmentsByState } from './modules/enrollment/service.js';
import { createDualFaceServer, type PortalListener } from './tls/dual-face-server.js';
import type { ConnectionLimits } from './tls/connection-share.js';
import { loadServerCredentials, TAK_ENROLL_FILE_STEM } from './tls/server-credentials.js';
import { createTakEnrollServer } from './tls/tak-enroll-server.js';

export interface RunningPortal {
  portal: Portal;
  app: FastifyInstance;
  server: PortalListener;
  /** The port actually bound (differs from the configured one when that was 0). */
  port: number;
  /** The TAK enrollment face, unless `PORTAL_TAK_ENROLL_PORT=off`. */
  takEnroll: { app: FastifyInstance; server: PortalListener; port: number } | undefined;
  /** The Prometheus listener; undefined when PORTAL_METRICS_ADDRESS is off. */
  metrics: MetricsListener | undefined;
  /** Stops accepting, finishes what is in flight, closes the database. */
  close(): Promise<void>;
}

/** What every listener of the portal admits (tls/connection-share.ts), each refusal counted. */
function connectionLimitsOf(portal: Portal, listener: PortalListenerName): ConnectionLimits {
  const { config } = portal;
  return {
    maxConnections: config.maxConnections,
    maxUnprovenPerAddress: config.maxUnprovenPerAddress,
    // Behind the proxy every connection is the proxy's: the bound per client is nginx's.
    maxPerAddress: config.tlsMode === 'proxy' ? undefined : config.maxConnectionsPerAddress,
    turnedAway: (reason) => {
      portal.metrics.connectionTurnedAway(listener, reason);
    },
  };
}

/** `[ca.trustPem]`, the same array until the CA's trust changes (a rollover begun or finished). */
function memoizedTrust(portal: Portal): () => string[] {
  let last = [portal.ca.trustPem];
  return () => {
    const pem = portal.ca.trustPem;
    if (pem !== last[0]) last = [pem];
    return last;
  };
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
    // Both issuing CAs during a rollover (the same array while nothing changes: no new context).
    clientCaPem: memoizedTrust(portal),
    mtlsHost: config.mtlsHost,
    httpsOrigin: config.publicOrigin,
    connectionLimits: connectionLimitsOf(portal, 'portal'),
    handler: (request, response) => {
      app.routing(request, response);
    },
  });
}

/**
 * What the metrics read from the database and the CA when Prometheus scrapes (the inject tier
 * watches them too, to scrape `portal.metrics` without the listener).
 */
export function scrapeProbes(portal: Portal): ScrapeProbes {
  const { database, certificates, ca, keyPool } = portal;
  return {
    enrollmentsByState: () => countEnrollmentsByState(database.db),
    currentCrl: () => certificates.currentCrl(),
    // A getter: the issuing CA is the current one at each scrape (a rollover changes it).
    get caCertificates() {
      return [
        { ca: 'root', notAfter: new Date(new X509Certificate(ca.rootCertificatePem).validTo) },
        {
          ca: 'issuing',
          notAfter: new Date(new X509Certificate(ca.issuingCertificatePem).validTo),
        },
      ] as const;
    },
    ...(database.poolUsage === undefined ? {} : { pool: database.poolUsage }),
    ...(keyPool === undefined ? {} : { keyPool: () => keyPool.available }),
    ocspSignatures: () => ca.ocspSignatures,
    ocspRefusals: () => ca.ocspRefusals,
    revocationFetches: async () => {
      const { ocsp, crl } = await portal.services.presence.lastFetches();
      return {
        ...(ocsp === undefined ? {} : { ocsp: ocsp.at }),
        ...(crl === undefined ? {} : { crl: crl.at }),
      };
    },
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
 * The TAK enrollment face's own listener on `PORTAL_TAK_ENROLL_PORT`: TLS with the operator's
 * certificate for `{takHost}` or one from the portal's CA, or plain HTTP behind the proxy (nginx's
 * 8446 server block terminates TLS and forwards here).
 */
async function takEnrollListener(portal: Portal, app: FastifyInstance): Promise<PortalListener> {
  const { config } = portal;
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    app.routing(request, response);
  };
  if (config.tlsMode === 'proxy') {
    return createPlainListener(handler, connectionLimitsOf(portal, 'tak-enroll'));
  }
  const credentials = await loadServerCredentials(
    {
      names: [config.takHost],
      tlsDir: config.tlsDir,
      certFile: config.takEnroll?.tlsCertFile,
      keyFile: config.takEnroll?.tlsKeyFile,
      fileStem: TAK_ENROLL_FILE_STEM,
    },
    portal.certificates,
  );
  return createTakEnrollServer({
    credentials,
    handler,
    connectionLimits: connectionLimitsOf(portal, 'tak-enroll'),
  });
}

async function listenOn(server: PortalListener, port: number, address: string): Promise<number> {
  await server.listen(port, address);
  const bound = server.listener.address();
  return typeof bound === 'object' && bound !== null ? bound.port : port;
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
  const portal = await openPortal(config, {
    migrate: true,
    keyPool: true,
    packInWorkers: true,
    directorySync: true,
  });
  const opened: { close(): Promise<void> }[] = [];
  try {
    const app = await buildApp(portal, options);
    opened.push(app);
    await app.ready();
    const server =
      config.tlsMode === 'proxy'
        ? createPlainListener(
            (request, response) => {
              app.routing(request, response);
            },
            connectionLimitsOf(portal, 'portal'),
          )
        : await builtinTlsListener(portal, app);
    const port = await listenOn(server, config.port, config.listenAddress);
    opened.unshift(server);
    let takEnroll: RunningPortal['takEnroll'];
    if (config.takEnroll !== undefined) {
      const enrollApp = await buildTakEnrollApp(portal, options);
      opened.push(enrollApp);
      await enrollApp.ready();
      const enrollServer = await takEnrollListener(portal, enrollApp);
      const enrollPort = await listenOn(enrollServer, config.takEnroll.port, config.listenAddress);
      opened.unshift(enrollServer);
      takEnroll = { app: enrollApp, server: enrollServer, port: enrollPort };
    }
    const metrics = await startMetrics(portal, app);
    if (metrics !== undefined) opened.unshift(metrics);
    return {
      portal,
      app,
      server,
      port,
      takEnroll,
      metrics,
      async close() {
        // The listeners first (they finish what is in flight), then the apps, then the database.
        for (const part of opened) await part.close();
        await portal.close();
      },
    };
  } catch (error) {
    for (const part of opened) await part.close().catch(() => undefined);
    await portal.close();
    throw error;
  }
}
