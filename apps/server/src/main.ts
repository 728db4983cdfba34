// @peculiar/x509 needs decorator metadata before anything imports it.
import 'reflect-metadata';
import { ConfigError, loadConfigFromProcess, type Config } from './config.js';
import type { Portal } from './portal.js';
import { adminLoginLink, createAdminCode, FIRST_START } from './modules/firstuser/admin-code.js';
import { hasActiveAdmin } from './modules/people/service.js';
import { enrollmentFaceTrustLine } from './modules/tak/enrollment-face-trust.js';
import { startPortal, type RunningPortal } from './server.js';
import { readVersion } from './version.js';

/** While no admin exists, every start prints a fresh admin code and its ready login link. */
async function announceFirstAdmin(portal: Portal): Promise<void> {
  const { config } = portal;
  if (await hasActiveAdmin(portal.database.db)) return;
  const { code, expiresAt } = await createAdminCode(portal.database.db, {
    ttlMs: config.adminCodeTtlMs,
    actor: FIRST_START,
  });
  const lines = [
    '',
    '  No administrator yet. Open this link to become the first one:',
    '',
    `    ${adminLoginLink(config.publicOrigin, code)}`,
    '',
    `  Admin code ${code} works once, until ${expiresAt.toISOString()}.`,
    '  A new one: npm run --silent portal -- admin-code',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function metricsUrl(config: Config): string {
  const address = config.metricsAddress;
  if (address === undefined) return 'off (PORTAL_METRICS_ADDRESS)';
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `http://${host}:${address.port}/metrics`;
}

function describeFaces(config: Config): string {
  return [
    `  Portal:      ${config.publicOrigin}/`,
    `  mTLS face:   ${config.mtlsOrigin}/`,
    config.tlsMode === 'proxy'
      ? `  Listening:   http://${config.listenAddress}:${config.port} (behind the proxy: ${config.trustedProxies.join(', ')})`
      : `  Listening:   ${config.listenAddress}:${config.port}`,
    config.takEnroll === undefined
      ? '  TAK enroll:  off'
      : `  TAK enroll:  https://${config.takHost}:${config.takEnroll.publicPort}/Marti/api/tls/ (${config.tlsMode === 'proxy' ? `plain HTTP on ${config.listenAddress}:${config.takEnroll.port} behind the proxy` : `${config.listenAddress}:${config.takEnroll.port}`})`,
    `  Data:        ${config.dataDir} (${config.databaseUrl === undefined ? 'SQLite' : 'PostgreSQL'})`,
    `  CA chain:    ${config.publicOrigin}/ca/ca.pem`,
    `  Metrics:     ${metricsUrl(config)}`,
  ].join('\n');
}

/**
 * Whether phones trust the TAK enrollment face by themselves (docs/tak.md#one-scan-enrollment-the-tak-enrollment-face): a banner line and
 * a log line, a warning when they will need the trust package first.
 */
async function announcePhoneTrust({ app, portal }: RunningPortal): Promise<void> {
  const trust = await portal.services.takEnrollmentFaceTrust.current();
  if (trust === undefined) return;
  const line = enrollmentFaceTrustLine(trust, portal.config.takHost);
  process.stdout.write(`  TAK trust:   ${line}\n`);
  const fields = { trusted_by_phones: trust.trusted, basis: trust.basis };
  if (trust.trusted) app.log.info(fields, `TAK enrollment: ${line}`);
  else app.log.warn(fields, `TAK enrollment: ${line}`);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfigFromProcess(readVersion());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const running = await startPortal(config);
  const { app, portal } = running;
  app.log.info(
    {
      host: config.host,
      port: config.port,
      address: config.listenAddress,
      version: config.version,
    },
    'portal listening',
  );
  process.stdout.write(`\nCallsign Portal ${config.version}\n${describeFaces(config)}\n`);
  await announcePhoneTrust(running);
  await announceFirstAdmin(portal);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    void (async () => {
      await running.close();
      process.exit(0);
    })().catch((error: unknown) => {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.once('SIGINT', () => {
    stop('SIGINT');
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Callsign Portal failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
