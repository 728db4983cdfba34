import { mkdir } from 'node:fs/promises';
import { CertificateAuthority } from './ca/authority.js';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { PortalMetrics } from './metrics/portal-metrics.js';
import type { MemberLookup } from './modules/auth/identity.js';
import { TokenService } from './modules/auth/token-service.js';
import { CertificateService } from './modules/certificates/service.js';
import { Membership } from './modules/people/membership.js';
import { memberLookup } from './modules/people/service.js';

/** Everything a process of the portal works with: the service and the CLI open the same. */
export interface Portal {
  config: Config;
  database: DatabaseHandle;
  ca: CertificateAuthority;
  tokens: TokenService;
  certificates: CertificateService;
  members: MemberLookup;
  /** What this process counts for Prometheus (served by the metrics listener, if any). */
  metrics: PortalMetrics;
  close(): Promise<void>;
}

export interface OpenPortalOptions {
  /** Run the database migrations (the service does; `migrate` does it alone). */
  migrate?: boolean;
  onMigrated?: (applied: string[]) => void;
}

/**
 * Opens the data directory, the CA (made at first start), the JWT key and the database. The CA
 * material stays in `{dataDir}/ca` with mode 0600 files in a 0700 directory.
 */
export async function openPortal(config: Config, options: OpenPortalOptions = {}): Promise<Portal> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const ca = await CertificateAuthority.loadOrCreate({
    dir: config.caDir,
    publicBaseUrl: config.httpCaOrigin,
    ...(config.caPassphrase === undefined ? {} : { passphrase: config.caPassphrase }),
  });
  const tokens = await TokenService.open(config.caDir);
  const database = openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    if (options.migrate === true) {
      const applied = await migrateToLatest(database);
      options.onMigrated?.(applied);
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  const metrics = new PortalMetrics({ version: config.version });
  const certificates = new CertificateService(
    database.db,
    ca,
    {
      validityDays: config.certificateValidityDays,
      keyAlgorithm: config.keyAlgorithm,
      crlValidityDays: config.crlValidityDays,
    },
    { members: new Membership(database.db), keysPerHour: config.keysPerHour, metrics },
  );
  const members: MemberLookup = memberLookup(database.db);
  return {
    config,
    database,
    ca,
    tokens,
    certificates,
    members,
    metrics,
    close: () => database.close(),
  };
}
