import { rootCertificates } from 'node:tls';
import { mkdir } from 'node:fs/promises';
import { CertificateAuthority } from './ca/authority.js';
import { KeyPool, type KeyPairSupply } from './ca/key-pool.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from './ca/pkcs12-jobs.js';
import { Pkcs12Workers } from './ca/pkcs12-workers.js';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { PortalMetrics } from './metrics/portal-metrics.js';
import type { MemberLookup } from './modules/auth/identity.js';
import { DatabaseFailureBudget } from './modules/auth/failure-budget.js';
import { demoteMember } from './commands/demote-member.js';
import { revokeMemberAsAdmin } from './commands/revoke-member.js';
import { revocationReceipt } from './modules/certificates/revocation-receipt.js';
import { TokenService } from './modules/auth/token-service.js';
import { defaultConcurrentMints, MintingSlots } from './modules/certificates/minting-limits.js';
import { TakPresence } from './modules/certificates/presence.js';
import { CertificateService } from './modules/certificates/service.js';
import { CaRolloverService } from './modules/certificates/rollover.js';
import { AuditService } from './modules/audit/service.js';
import { BulkService } from './modules/bulk/service.js';
import { KeyLifecycle } from './modules/certificates/key-lifecycle.js';
import { EnrollmentService } from './modules/enrollment/service.js';
import { RenewalCodes } from './modules/renewal/service.js';
import { FirstuserService } from './modules/firstuser/service.js';
import { SignOutService } from './modules/firstuser/sign-out.js';
import { InstructionsService } from './modules/instructions/service.js';
import { InviteService } from './modules/invites/service.js';
import { KeyService } from './modules/keys/service.js';
import { Membership } from './modules/people/membership.js';
import { memberLookup, PeopleService } from './modules/people/service.js';
import { PresetService } from './modules/presets/service.js';
import { NO_DIRECTORY, thenPublish, type DirectoryChanges } from './directory/changes.js';
import { LdapDirectory } from './directory/ldap-directory.js';
import { DirectoryPublisher } from './modules/groups/directory-publisher.js';
import { GroupService } from './modules/groups/service.js';
import type { PortalServices, RouteContext } from './modules/route-context.js';
import { EnrollmentFaceTrustService } from './modules/tak/enrollment-face-trust.js';
import { TakReadinessService } from './modules/tak/readiness.js';
import { TakPackageService } from './modules/tak/service.js';
import { takSiteSettings } from './modules/tak/settings.js';
import { TakEnrollment } from './modules/tak/tak-enrollment.js';
import { TakEnrollmentTokens } from './modules/tak/tak-enrollment-tokens.js';

/**
 * Everything a process of the portal works with: the service and the CLI open the same. The
 * composition root: every service is built here once (`services`), and the routes of both faces
 * and the CLI receive them.
 */
export interface Portal extends RouteContext {
  config: Config;
  database: DatabaseHandle;
  ca: CertificateAuthority;
  tokens: TokenService;
  certificates: CertificateService;
  members: MemberLookup;
  services: PortalServices;
  /** The clock of the rules (token lifetimes, code expiry). */
  now: () => Date;
  /** What this process counts for Prometheus (served by the metrics listener, if any). */
  metrics: PortalMetrics;
  /**
   * The reconciler of the LDAP directory (`PORTAL_LDAP_*`, docs/directory.md); undefined without
   * one. The service starts it (`openPortal`'s `directorySync`); in the CLI a change still
   * publishes at once, and `close()` waits for it.
   */
  directory: DirectoryPublisher | undefined;
  /** Key pairs made ahead (the service's, when `PORTAL_KEY_POOL_SIZE` is not 0). */
  keyPool: KeyPool | undefined;
  /** The threads that pack keystores and truststores (the service's; undefined: packed here). */
  pkcs12Workers: Pkcs12Workers | undefined;
  /** Stops the workers, writes the presence queued and closes the database. */
  close(): Promise<void>;
}

export interface OpenPortalOptions {
  /** Run the database migrations (the service does; `migrate` does it alone). */
  migrate?: boolean;
  onMigrated?: (applied: string[]) => void;
  /**
   * Make keys ahead in a worker thread (`PORTAL_KEY_POOL_SIZE`): the service does; a CLI
   * command, which issues a key or none, does not.
   */
  keyPool?: boolean;
  /**
   * Pack keystores and truststores in worker threads, one per minting slot, and build and sign
   * members' certificates there (a file-key CA), so that neither their key derivations nor the
   * certificates' ASN.1 and signatures hold the event loop: the service does; the CLI packs and
   * signs on its own thread.
   */
  packInWorkers?: boolean;
  /**
   * Key pairs made earlier by someone else, taken instead of a pool of this process's own (the
   * test run's stock: src/ca/test-key-stock.testing.ts). Once none is left, keys are made on
   * request, as with an empty pool.
   */
  keysMadeAhead?: KeyPairSupply;
  /** The clock of the rules (token lifetimes, code expiry); tests may move it. */
  now?: () => Date;
  /** Sync the LDAP directory at start and every period (the service does). */
  directorySync?: boolean;
  /** The reconciler's period and first retry, in ms (tests shorten them). */
  directoryTimings?: { periodMs?: number; retryMs?: number; maxRetryMs?: number };
}

/** Every service, each built once, on the parts `openPortal` opened. */
function buildServices(
  config: Config,
  database: DatabaseHandle,
  parts: Pick<PortalServices, 'tokens' | 'members' | 'certificates' | 'presence'> & {
    metrics: PortalMetrics;
    directory: DirectoryChanges;
    packing: Pkcs12Packing;
    ca: CertificateAuthority;
  },
  now: () => Date,
): PortalServices {
  const { db } = database;
  const { tokens, certificates, directory } = parts;
  const presets = new PresetService(db, now);
  const takSettings = takSiteSettings(config);
  const takPackages = new TakPackageService(certificates, takSettings, presets, parts.packing);
  const takEnrollmentTokens = new TakEnrollmentTokens(
    db,
    config.takEnroll?.tokenTtlMs ?? 0,
    now,
    tokens,
  );
  const takEnrollmentFaceTrust = new EnrollmentFaceTrustService(config, now);
  const caRollover = new CaRolloverService(
    db,
    parts.ca,
    certificates,
    { dir: config.caDir, passphrase: config.caPassphrase },
    now,
  );
  return {
    tokens,
    members: parts.members,
    certificates,
    caRollover,
    presence: parts.presence,
    failureBudget: new DatabaseFailureBudget(
      db,
      {
        failures: config.rateLimitFailures,
        windowMs: config.rateLimitWindowMs,
        ceilingPerMinute: config.guessCeilingPerMinute,
      },
      Date.now,
      () => {
        parts.metrics.guessCeilingReached();
      },
    ),
    signOut: new SignOutService(db, tokens, now),
    firstuser: new FirstuserService({
      db,
      tokens,
      now,
      exchangeCodeTtlMs: config.exchangeCodeTtlMs,
      firstAdminTokenTtlMs: config.firstAdminTokenTtlMs,
      memberTokenTtlMs: config.memberTokenTtlMs,
      reservedCallsigns: config.reservedCallsigns,
      directory,
    }),
    enrollment: new EnrollmentService({
      db,
      tokens,
      now,
      enrollmentGraceMs: config.enrollmentGraceMs,
      reservedCallsigns: config.reservedCallsigns,
      directory,
    }),
    people: new PeopleService(db, now, directory),
    // A revoked member leaves the directory, a demoted one its admins group, right after commit.
    memberCommands: {
      revoke: async (actor, callsign, onCheckError = () => undefined) => {
        const revoked = await thenPublish(
          directory,
          revokeMemberAsAdmin(db, certificates, actor, callsign, now()),
        );
        return {
          ...revoked,
          receipt: await revocationReceipt(certificates, revoked, onCheckError),
        };
      },
      demote: (actor, callsign) => thenPublish(directory, demoteMember(db, actor, callsign, now())),
    },
    groups: new GroupService(db, now, directory),
    invites: new InviteService(db, now),
    bulk: new BulkService(db, now, config.reservedCallsigns),
    presets,
    keys: new KeyService(certificates),
    keyLifecycle: new KeyLifecycle(db, now, parts.metrics, (callsign) =>
      caRollover.renewalNotice(callsign),
    ),
    renewalCodes: new RenewalCodes(db, certificates, now),
    instructions: new InstructionsService(takPackages),
    audit: new AuditService(db, now),
    takPackages,
    takEnrollmentTokens,
    takEnrollment: new TakEnrollment(takEnrollmentTokens, certificates, takSettings, parts.packing),
    takEnrollmentFaceTrust,
    takReadiness: new TakReadinessService(
      config,
      certificates,
      parts.presence,
      takEnrollmentFaceTrust,
      now,
    ),
  };
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
    leafBackdateMs: config.certBackdateMs,
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
  const mintingSlots = new MintingSlots(defaultConcurrentMints());
  const keyPool =
    options.keyPool === true && config.keyPoolSize > 0
      ? new KeyPool({
          algorithm: config.keyAlgorithm,
          size: config.keyPoolSize,
          lowWater: config.keyPoolLowWater,
          // Refilled only while no request mints: the pool never competes with one.
          busy: () => mintingSlots.inUse > 0,
        })
      : undefined;
  const keysMadeAhead = keyPool ?? options.keysMadeAhead;
  const pkcs12Workers =
    options.packInWorkers === true ? new Pkcs12Workers(mintingSlots.size) : undefined;
  const packing = pkcs12Workers ?? PACK_ON_THIS_THREAD;
  const now = options.now ?? (() => new Date());
  const presence = new TakPresence(
    database.db,
    now,
    (error) => {
      process.emitWarning(`Presence not recorded: ${String(error)}`);
    },
    { takServers: config.takServerAddresses, crlFetcherMs: config.crlValidityDays * 86_400_000 },
  );
  const certificates = new CertificateService(
    database.db,
    ca,
    {
      validityDays: config.certificateValidityDays,
      keyAlgorithm: config.keyAlgorithm,
      crlValidityDays: config.crlValidityDays,
    },
    {
      members: new Membership(database.db),
      keysPerHour: config.keysPerHour,
      maxKeysPerMember: config.maxKeysPerMember,
      metrics,
      mintingSlots,
      presence,
      packing,
      ...(pkcs12Workers === undefined ? {} : { signing: pkcs12Workers }),
      ...(keysMadeAhead === undefined ? {} : { keyPool: keysMadeAhead }),
    },
  );
  const members: MemberLookup = memberLookup(database.db);
  const ldap = config.ldap;
  let directory: DirectoryPublisher | undefined;
  const relay: DirectoryChanges = { changed: () => directory?.changed() };
  const services = buildServices(
    config,
    database,
    {
      tokens,
      members,
      certificates,
      metrics,
      presence,
      ca,
      directory: ldap ? relay : NO_DIRECTORY,
      packing,
    },
    now,
  );
  if (ldap !== undefined) {
    directory = new DirectoryPublisher({
      directory: new LdapDirectory({
        url: ldap.url,
        bindDn: ldap.bindDn,
        bindPassword: ldap.bindPassword,
        layout: { baseDn: ldap.baseDn, groupPrefix: ldap.groupPrefix },
        // ldaps:// to a server whose certificate the portal's CA issued (`server-cert`), or
        // a public one.
        trustedCaPem: [...rootCertificates, ca.trustPem],
      }),
      readState: () => services.groups.directoryState(),
      now,
      ...options.directoryTimings,
      onError: (error) => {
        process.emitWarning(`LDAP directory not in sync: ${error.message}`);
      },
    });
    metrics.watchDirectory(
      () => directory?.status() ?? { inSync: false, lastSyncAt: null, pending: 0 },
    );
    if (options.directorySync === true) directory.start();
  }
  return {
    config,
    database,
    ca,
    tokens,
    certificates,
    members,
    services,
    directory,
    now,
    metrics,
    keyPool,
    pkcs12Workers,
    close: async () => {
      await directory?.close();
      await keyPool?.close();
      await pkcs12Workers?.close();
      await presence.flush();
      await database.close();
    },
  };
}
