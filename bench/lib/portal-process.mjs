// A portal in its own process for the load generator: starts the real service from
// apps/server/dist on a free port, seeds the database, issues an admin and a member key, prints
// one JSON line with what the bench needs, and runs until SIGTERM.
//
// Usage: node portal-process.mjs '{"dataDir": "...", "databaseUrl": "...", "active": 10000, ...}'
import { existsSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort, importServer } from './common.mjs';
import { activeCallsign, pendingCallsign, seed } from './seed.mjs';

const { loadConfig } = await importServer('config.js');
const { startPortal } = await importServer('server.js');
const { insertMember } = await importServer('modules/people/repository.js');
const { recordIssuedCertificate } = await importServer('modules/certificates/repository.js');

/**
 * `keyHolders`: that many more active members (`Holder001`…), each with a key, for the sections
 * that need many members at once. `env`: more PORTAL_* settings. `burstMembers`: that many of
 * the seeded active members (`M000001`…) get a bearer JWT of their own. `waitForKeyPool`: ready
 * only once the key pool is full. `loopMonitor`: on SIGUSR2, the event loop's longest delay since
 * the last SIGUSR2 is written to `{dataDir}/loop.json`.
 * `memberDetails`: the seeded members differ in team, role, presence and key expiry (seed.mjs).
 * `joinExisting`: another instance on a database an earlier one seeded (PostgreSQL): nothing is
 * seeded or issued, the members and keys are the first instance's. `metrics`: the Prometheus
 * listener on a free loopback port (`metricsPort` in the printed line).
 * @type {{ dataDir: string, databaseUrl?: string, webDir?: string, active: number, pending: number, revokedShare?: number, memberDetails?: boolean, keyHolders?: number, burstMembers?: number, waitForKeyPool?: boolean, loopMonitor?: boolean, joinExisting?: boolean, metrics?: boolean, env?: Record<string, string> }}
 */
const options = JSON.parse(process.argv[2] ?? '{}');

// A CA made once per bench run (run.mjs), copied in: every portal of a run would otherwise spend
// seconds making its own RSA-4096 and RSA-3072 CA keys before it can start.
const caTemplate = process.env.BENCH_CA_TEMPLATE;
if (caTemplate && !existsSync(path.join(options.dataDir, 'ca'))) {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  await cp(caTemplate, path.join(options.dataDir, 'ca'), {
    recursive: true,
    preserveTimestamps: true,
  });
}

const metricsPort = options.metrics ? await freePort() : undefined;
const config = loadConfig(
  {
    PORTAL_PORT: String(await freePort()),
    PORTAL_TAK_ENROLL_PORT: String(await freePort()),
    PORTAL_DATA_DIR: options.dataDir,
    PORTAL_WEB_DIR: options.webDir ?? path.join(options.dataDir, 'no-web'),
    PORTAL_LOG_LEVEL: 'silent',
    PORTAL_METRICS_ADDRESS: options.metrics ? `127.0.0.1:${metricsPort}` : 'off',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  },
  { version: '0.0.0-bench' },
);
const running = await startPortal(config, { logger: false });
const { portal } = running;
const db = portal.database.db;

const seedStart = performance.now();
if (!options.joinExisting) {
  await seed(db, {
    active: options.active,
    pending: options.pending,
    revokedShare: options.revokedShare ?? 0,
    memberDetails: options.memberDetails ?? false,
  });
}
const seedMs = performance.now() - seedStart;

/**
 * A member and a key of theirs, issued by the CA and recorded directly (as the seed does), so
 * that set-up spends none of the member's issuance budget and works on every build.
 * @param {string} callsign @param {('admin')[]} roles
 */
async function memberWithKey(callsign, roles) {
  await insertMember(db, { callsign, status: 'active', inviteCode: null, roles, at: Date.now() });
  const issued = await portal.ca.issueMemberCertificate({ callsign, validityDays: 365 });
  await recordIssuedCertificate(db, {
    serial: issued.serial,
    callsign,
    purpose: 'browser',
    notBefore: issued.notBefore.getTime(),
    notAfter: issued.notAfter.getTime(),
    issuedAt: Date.now(),
  });
  return { callsign, certPem: issued.certificatePem, keyPem: issued.privateKeyPem };
}
const admin = options.joinExisting ? undefined : await memberWithKey('BenchAdmin', ['admin']);
const member = options.joinExisting ? undefined : await memberWithKey('BenchMember', []);
/** @type {{ callsign: string, certPem: string, keyPem: string }[]} */
const keyHolders = [];
for (let n = 1; n <= (options.keyHolders ?? 0); n += 2) {
  // Two at a time: one key generation per core.
  const pair = [n, n + 1].filter((i) => i <= (options.keyHolders ?? 0));
  keyHolders.push(
    ...(await Promise.all(
      pair.map((i) => memberWithKey(`Holder${String(i).padStart(3, '0')}`, [])),
    )),
  );
}
const enrollee = options.pending > 0 ? pendingCallsign(1) : undefined;
const enrollmentJwt =
  enrollee === undefined
    ? undefined
    : (await portal.tokens.issue({ scope: 'enrollment', subject: enrollee, ttlMs: 3_600_000 })).jwt;
/** @type {{ callsign: string, jwt: string }[]} */
const burst = [];
for (let n = 1; n <= (options.burstMembers ?? 0); n++) {
  const callsign = activeCallsign(n);
  const { jwt } = await portal.tokens.issue({
    scope: 'enrollment',
    subject: callsign,
    ttlMs: 3_600_000,
  });
  burst.push({ callsign, jwt });
}
let keyPoolFilledMs;
if (options.waitForKeyPool && portal.keyPool !== undefined) {
  const begin = performance.now();
  const deadline = begin + 600_000;
  while (portal.keyPool.available < config.keyPoolSize && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  keyPoolFilledMs = performance.now() - begin;
}
if (options.loopMonitor) {
  const delays = monitorEventLoopDelay({ resolution: 5 });
  delays.enable();
  process.on('SIGUSR2', () => {
    const stalls = {
      maxMs: delays.max / 1e6,
      p99Ms: delays.percentile(99) / 1e6,
      at: Date.now(),
    };
    writeFileSync(path.join(options.dataDir, 'loop.json'), JSON.stringify(stalls));
    delays.reset();
  });
}
const chainFile = path.join(options.dataDir, 'bench-chain.pem');
await writeFile(chainFile, portal.ca.chainPem);

// BENCH_PROFILE=file: a CPU profile of the serving phase only (after start-up and seeding).
/** @type {import('node:inspector').Session | undefined} */
let profiler;
if (process.env.BENCH_PROFILE) {
  const inspector = await import('node:inspector');
  profiler = new inspector.Session();
  profiler.connect();
  const post = (/** @type {string} */ method) =>
    new Promise((resolve, reject) =>
      /** @type {import('node:inspector').Session} */ (profiler).post(method, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
  await post('Profiler.enable');
  await post('Profiler.start');
}
async function writeProfile() {
  if (profiler === undefined || !process.env.BENCH_PROFILE) return;
  const file = process.env.BENCH_PROFILE;
  const result = await new Promise((resolve, reject) =>
    /** @type {import('node:inspector').Session} */ (profiler).post('Profiler.stop', (error, r) =>
      error ? reject(error) : resolve(r),
    ),
  );
  await writeFile(file, JSON.stringify(/** @type {any} */ (result).profile));
}

process.stdout.write(
  `${JSON.stringify({
    pid: process.pid,
    port: running.port,
    host: config.host,
    takHost: config.takHost,
    takEnrollPort: running.takEnroll?.port,
    mtlsHost: config.mtlsHost,
    metricsPort,
    engine: portal.database.engine,
    dataDir: options.dataDir,
    chainPem: portal.ca.chainPem,
    chainFile,
    seedMs,
    admin,
    member,
    keyHolders,
    enrollee,
    enrollmentJwt,
    burst,
    keyPool: portal.keyPool === undefined ? 0 : portal.keyPool.available,
    keyPoolFilledMs,
  })}\n`,
);

let closing = false;
process.on('SIGTERM', () => {
  if (closing) return;
  closing = true;
  void writeProfile()
    .then(() => running.close())
    .then(() => process.exit(0));
});
