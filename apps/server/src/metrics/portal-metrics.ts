import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CertificatePurpose, EnrollmentState } from '../db/schema.js';
import type { TurnedAwayReason } from '../tls/connection-share.js';

/**
 * What the portal reports to Prometheus (docs/operations.md lists every series). Counters and
 * the in-flight gauge live in this process and start at zero with it: Prometheus's `rate()` and
 * `increase()` take restarts in their stride, and several instances are summed. What the whole
 * deployment shares (enrollments, the CRL, the CA) is read when Prometheus scrapes, so every
 * instance reports the same value (aggregate those with max, not sum).
 *
 * Labels are templates and small fixed sets only (route pattern, status, purpose): never a
 * callsign, code or raw URL, so the number of series stays bounded whatever callers send.
 */

const PREFIX = 'callsign_portal_';
const PURPOSES: readonly CertificatePurpose[] = ['browser', 'tak-package', 'tak-enroll', 'server'];
/** The listeners that admit connections: both faces' (or the proxy's plain one), TAK enrollment's. */
export type PortalListenerName = 'portal' | 'tak-enroll';
const LISTENERS: readonly PortalListenerName[] = ['portal', 'tak-enroll'];
const TURNED_AWAY_REASONS: readonly TurnedAwayReason[] = [
  'address_share',
  'pool_full',
  'made_room',
  'slow_request',
];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const ENROLLMENT_STATE_NAMES: Record<EnrollmentState, string> = {
  0: 'pending',
  1: 'approved',
  2: 'rejected',
};

/** The certificate authority's side: what the issuing and revoking code reports. */
export interface CertificateMetrics {
  /** A certificate was recorded as issued. */
  certificateIssued(purpose: CertificatePurpose): void;
  /** `count` certificates of `purpose` were recorded as revoked. */
  certificatesRevoked(purpose: CertificatePurpose, count: number): void;
  /** A key pair generation began; every call is paired with one mintEnded. */
  mintStarted(): void;
  mintEnded(): void;
  /** A key generation was refused before it began (a limit on minting); `reason` is a fixed word. */
  mintRefused(reason: string): void;
}

/** Reports nothing: for code run outside the service (tests, tools) that needs a CertificateMetrics. */
export const ignoredCertificateMetrics: CertificateMetrics = {
  certificateIssued: () => undefined,
  certificatesRevoked: () => undefined,
  mintStarted: () => undefined,
  mintEnded: () => undefined,
  mintRefused: () => undefined,
};

/** The signed CRL as Prometheus sees it. */
export interface CrlFacts {
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
}

/** The LDAP publication's state, as the metrics report it. */
export interface DirectoryFacts {
  inSync: boolean;
  /** Epoch milliseconds; null: never. */
  lastSyncAt: number | null;
  pending: number;
}

/** What is read at scrape time: cheap questions to the database and the CA. */
export interface ScrapeProbes {
  /** Enrollments per state (a GROUP BY over the enrollments table). */
  enrollmentsByState(): Promise<Partial<Record<EnrollmentState, number>>>;
  /** The CRL the portal serves now (signed on demand when due). */
  currentCrl(): Promise<CrlFacts>;
  /**
   * The CA certificates' expiry, read at each scrape: after a CA rollover the issuing CA is the
   * new one.
   */
  readonly caCertificates: readonly { ca: 'root' | 'issuing'; notAfter: Date }[];
  /**
   * PostgreSQL's connection pool; undefined on SQLite, whose one synchronous connection has no
   * pool to watch (a query holds it only while the event loop is busy with it, so a scrape,
   * which runs between queries, would always see it free).
   */
  pool?: () => { inUse: number; waiting: number };
  /** Key pairs the key pool holds now; undefined when there is no pool. */
  keyPool?: () => number;
  /**
   * When a relying party (a TAK Server) last sent an OCSP request and last fetched the CRL, in
   * milliseconds since the epoch, as recorded in the database; a kind never seen is absent.
   */
  revocationFetches?: () => Promise<{ ocsp?: number; crl?: number }>;
  /** OCSP answers this process has signed since it started (a cached answer signs none). */
  ocspSignatures?: () => number;
  /** OCSP requests this process answered `tryLater` since it started, by why (ca/ocsp.ts). */
  ocspRefusals?: () => Readonly<Record<'address_budget' | 'queue_full', number>>;
}

export interface FinishedRequest {
  method: string;
  /** The route's pattern (`/api/v1/people/:callsign`), never the URL. */
  route: string;
  status: number;
  seconds: number;
}

const seconds = (date: Date) => date.getTime() / 1000;

export class PortalMetrics implements CertificateMetrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly refusals = new Counter({
    name: `${PREFIX}failure_budget_refusals_total`,
    help: 'Calls refused with 429 because the caller spent their failure budget, by route pattern',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  private readonly ceilingRefusals = new Counter({
    name: `${PREFIX}guess_ceiling_refusals_total`,
    help: 'Guesses refused with 429 because the deployment reached PORTAL_GUESS_CEILING_PER_MINUTE failed guesses this minute (docs/api.md)',
    registers: [this.registry],
  });

  private readonly issued = new Counter({
    name: `${PREFIX}certificates_issued_total`,
    help: 'Certificates issued and recorded, by purpose (member key, TAK package, server)',
    labelNames: ['purpose'] as const,
    registers: [this.registry],
  });

  private readonly revoked = new Counter({
    name: `${PREFIX}certificates_revoked_total`,
    help: 'Certificates revoked, by purpose',
    labelNames: ['purpose'] as const,
    registers: [this.registry],
  });

  private readonly minting = new Gauge({
    name: `${PREFIX}key_generations_in_flight`,
    help: 'Key pairs being generated now',
    registers: [this.registry],
  });

  private readonly mintRefusals = new Counter({
    name: `${PREFIX}key_generation_refusals_total`,
    help: 'Key generations refused by a minting limit before they began, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly turnedAway = new Counter({
    name: `${PREFIX}connections_turned_away_total`,
    help:
      'Connections the listener closed by its share rule, by listener and reason (an address ' +
      'over its share of unproven connections or of all, the pool full, one closed to make ' +
      'room: still unproven after its grace, else the longest idle; slow_request: else the ' +
      'slowest request in flight of the address holding most)',
    labelNames: ['listener', 'reason'] as const,
    registers: [this.registry],
  });

  constructor(options: { version: string }) {
    new Gauge({
      name: `${PREFIX}build_info`,
      help: 'Always 1; the version of the portal as a label',
      labelNames: ['version'] as const,
      registers: [this.registry],
    }).set({ version: options.version }, 1);
    // Every purpose from the start: a series that appears only at its first increase hides
    // that increase from rate().
    for (const purpose of PURPOSES) {
      this.issued.inc({ purpose }, 0);
      this.revoked.inc({ purpose }, 0);
    }
    for (const listener of LISTENERS) {
      for (const reason of TURNED_AWAY_REASONS) this.turnedAway.inc({ listener, reason }, 0);
    }
  }

  requestFinished(request: FinishedRequest): void {
    const labels = {
      method: METHODS.has(request.method) ? request.method : 'other',
      route: request.route,
      status: String(request.status),
    };
    this.requests.inc(labels);
    this.latency.observe(labels, request.seconds);
  }

  failureBudgetRefused(route: string): void {
    this.refusals.inc({ route });
  }

  guessCeilingReached(): void {
    this.ceilingRefusals.inc();
  }

  certificateIssued(purpose: CertificatePurpose): void {
    this.issued.inc({ purpose });
  }

  certificatesRevoked(purpose: CertificatePurpose, count: number): void {
    if (count > 0) this.revoked.inc({ purpose }, count);
  }

  mintStarted(): void {
    this.minting.inc();
  }

  mintEnded(): void {
    this.minting.dec();
  }

  mintRefused(reason: string): void {
    this.mintRefusals.inc({ reason });
  }

  connectionTurnedAway(listener: PortalListenerName, reason: TurnedAwayReason): void {
    this.turnedAway.inc({ listener, reason });
  }

  /** Node's process metrics (CPU, memory, event loop lag, GC): for the service, not the CLI. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The LDAP directory's publication (docs/directory.md): whether it holds the database's truth,
   * when it last did, and how many changes wait to reach it. Only with a directory configured.
   */
  watchDirectory(status: () => DirectoryFacts): void {
    const registers = [this.registry];
    new Gauge({
      name: `${PREFIX}ldap_in_sync`,
      help: "Whether the LDAP directory held the database's truth at the last attempt (1) or not (0)",
      registers,
      collect() {
        this.set(status().inSync ? 1 : 0);
      },
    });
    new Gauge({
      name: `${PREFIX}ldap_last_sync_timestamp_seconds`,
      help: "When the LDAP directory was last brought to the database's truth, in seconds since the epoch (0: never)",
      registers,
      collect() {
        const { lastSyncAt } = status();
        this.set(lastSyncAt === null ? 0 : lastSyncAt / 1000);
      },
    });
    new Gauge({
      name: `${PREFIX}ldap_pending_changes`,
      help: 'Changes committed in the database that have not reached the LDAP directory yet',
      registers,
      collect() {
        this.set(status().pending);
      },
    });
  }

  /** The series read at scrape time from the database and the CA. */
  watch(probes: ScrapeProbes): void {
    const registers = [this.registry];
    new Gauge({
      name: `${PREFIX}enrollments`,
      help: 'Enrollments by state (pending, approved, rejected), read from the database',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const counts = await probes.enrollmentsByState();
        for (const [state, name] of Object.entries(ENROLLMENT_STATE_NAMES)) {
          this.set({ state: name }, counts[Number(state) as EnrollmentState] ?? 0);
        }
      },
    });
    this.watchCrl(probes);
    new Gauge({
      name: `${PREFIX}ca_certificate_expiry_timestamp_seconds`,
      help: 'When each CA certificate expires (notAfter), in seconds since the epoch',
      labelNames: ['ca'] as const,
      registers,
      collect() {
        for (const { ca, notAfter } of probes.caCertificates) this.set({ ca }, seconds(notAfter));
      },
    });
    this.watchRevocationFetches(probes);
    const { keyPool, ocspSignatures, ocspRefusals } = probes;
    if (ocspRefusals !== undefined) {
      const counted = { address_budget: 0, queue_full: 0 };
      new Counter({
        name: `${PREFIX}ocsp_try_later_total`,
        help: 'OCSP requests answered tryLater instead of a new signature: the address had used its share (address_budget) or 32 answers waited to be signed (queue_full)',
        labelNames: ['reason'] as const,
        registers,
        collect() {
          const now = ocspRefusals();
          for (const reason of ['address_budget', 'queue_full'] as const) {
            this.inc({ reason }, now[reason] - counted[reason]);
            counted[reason] = now[reason];
          }
        },
      });
    }
    if (ocspSignatures !== undefined) {
      let counted = 0;
      new Counter({
        name: `${PREFIX}ocsp_signatures_total`,
        help: "OCSP answers signed with the delegated signer's private key (a cached answer is not)",
        registers,
        collect() {
          const now = ocspSignatures();
          this.inc(now - counted);
          counted = now;
        },
      });
    }
    if (keyPool !== undefined) {
      new Gauge({
        name: `${PREFIX}key_pool_keys`,
        help: 'Key pairs made ahead and held by the key pool now, ready for downloads',
        registers,
        collect() {
          this.set(keyPool());
        },
      });
    }
    const { pool } = probes;
    if (pool === undefined) return;
    new Gauge({
      name: `${PREFIX}db_pool_connections_in_use`,
      help: 'PostgreSQL connections of the pool running a query or transaction now',
      registers,
      collect() {
        this.set(pool().inUse);
      },
    });
    new Gauge({
      name: `${PREFIX}db_pool_waiting_requests`,
      help: 'Queries waiting for a free PostgreSQL connection of the pool',
      registers,
      collect() {
        this.set(pool().waiting);
      },
    });
  }

  /**
   * The age of the last OCSP request and CRL fetch of any TAK Server (presence, docs/operations.md#tak-readiness):
   * +Inf for one never seen, and while the database cannot be read (what was last seen is not
   * kept, so a failing read is not mistaken for a TAK Server still asking).
   */
  private watchRevocationFetches(probes: ScrapeProbes): void {
    const { revocationFetches } = probes;
    if (revocationFetches === undefined) return;
    let inFlight: Promise<{ ocsp?: number; crl?: number }> | undefined;
    const current = () => {
      inFlight ??= revocationFetches()
        .catch(() => ({}))
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    };
    const ageGauge = (name: string, help: string, kind: 'ocsp' | 'crl') =>
      new Gauge({
        name: `${PREFIX}${name}`,
        help,
        registers: [this.registry],
        async collect() {
          const at = (await current())[kind];
          this.set(at === undefined ? Number.POSITIVE_INFINITY : (Date.now() - at) / 1000);
        },
      });
    ageGauge(
      'tak_ocsp_check_age_seconds',
      'Seconds since a TAK Server (any client) last asked the OCSP responder about a key; +Inf: never',
      'ocsp',
    );
    ageGauge(
      'tak_crl_fetch_age_seconds',
      'Seconds since a TAK Server (any client) last fetched the CRL; +Inf: never',
      'crl',
    );
  }

  /**
   * The CRL's number, signing time, nextUpdate and age. A CRL that cannot be signed keeps the
   * last one's facts, so its age goes on growing and the age alert fires. Before any CRL could
   * be signed there is none to serve: the age is +Inf and nextUpdate the epoch (both alerts fire).
   */
  private watchCrl(probes: ScrapeProbes): void {
    const registers = [this.registry];
    let last: CrlFacts | undefined;
    // A scrape collects every series at once: its four CRL series share one question.
    let inFlight: Promise<CrlFacts | undefined> | undefined;
    const current = (): Promise<CrlFacts | undefined> => {
      inFlight ??= probes
        .currentCrl()
        .then(
          (crl) => (last = crl),
          // Keep `last`: its age grows.
          () => last,
        )
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    };
    const crlGauge = (name: string, help: string, value: (crl: CrlFacts) => number, none: number) =>
      new Gauge({
        name: `${PREFIX}${name}`,
        help,
        registers,
        async collect() {
          const crl = await current();
          this.set(crl === undefined ? none : value(crl));
        },
      });
    crlGauge(
      'crl_number',
      'The CRL number of the CRL served now',
      (crl) => Number(crl.crlNumber),
      0,
    );
    crlGauge(
      'crl_age_seconds',
      'Seconds since the thisUpdate of the CRL served now',
      (crl) => (Date.now() - crl.thisUpdate.getTime()) / 1000,
      Number.POSITIVE_INFINITY,
    );
    crlGauge(
      'crl_next_update_timestamp_seconds',
      'The nextUpdate of the CRL served now, in seconds since the epoch',
      (crl) => seconds(crl.nextUpdate),
      0,
    );
    crlGauge(
      'crl_validity_seconds',
      'From thisUpdate to nextUpdate of the CRL served now',
      (crl) => (crl.nextUpdate.getTime() - crl.thisUpdate.getTime()) / 1000,
      0,
    );
  }

  /** The Prometheus text exposition of every series. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
