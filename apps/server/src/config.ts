import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { callsignSchema, RESERVED_CALLSIGNS } from '@callsign/contract';
import { KEY_ALGORITHMS, type KeyAlgorithm } from './ca/key-pair.js';

/**
 * Every setting of the service, read from the environment once (docs/deployment.md). This module is
 * the only reader of `process.env`; a bad value stops start-up with a message naming the variable.
 */

const hostnamePattern =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => hostnamePattern.test(value) || isIP(value) !== 0, {
    error: 'must be a DNS name such as portal.example.org',
  });

const port = z.coerce
  .number({ error: 'must be a port number' })
  .int({ error: 'must be a whole number' })
  .min(1, { error: 'must be between 1 and 65535' })
  .max(65535, { error: 'must be between 1 and 65535' });

const positiveInt = (max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(max, { error: `must be at most ${max}` });

const wholeNumber = (max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be at least 0' })
    .max(max, { error: `must be at most ${max}` });

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** The entries of a list separated by commas or white space. */
function listEntries(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

const addressList = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const entries = listEntries(value);
    for (const entry of entries) {
      const [address = '', bits] = entry.split('/');
      const version = isIP(address);
      const maxBits = version === 6 ? 128 : 32;
      const validBits =
        bits === undefined || (/^\d+$/.test(bits) && Number(bits) >= 0 && Number(bits) <= maxBits);
      if (version === 0 || !validBits) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry}" is not an IP address or CIDR range`,
        });
      }
    }
    return entries;
  });

/**
 * The callsigns nobody may take (docs/api.md#sign-in-and-enrollment): the built-in names and the operator's
 * (comma-separated), lower-cased. An entry that is no callsign could never match: refused.
 */
const reservedCallsigns = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const extra = listEntries(value);
    for (const entry of extra) {
      if (!callsignSchema.safeParse(entry).success) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry}" is not a callsign (3 to 30 letters and digits)`,
        });
      }
    }
    return [...new Set([...RESERVED_CALLSIGNS, ...extra].map((name) => name.toLowerCase()))];
  });

const databaseUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()
  .refine((value) => value === undefined || /^postgres(ql)?:\/\/.+/.test(value), {
    error: 'must be a postgres:// URL (leave it unset for SQLite in the data directory)',
  });

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Where the Prometheus listener binds. */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * `IP:PORT` (`[IPv6]:PORT`) of the metrics listener, or `off` / empty for none. An IP address
 * rather than a name, so that what is bound is exactly what the operator wrote.
 */
const metricsAddress = z
  .string()
  .trim()
  .default('127.0.0.1:9464')
  .transform((value, ctx): ListenAddress | undefined => {
    if (value === '' || value.toLowerCase() === 'off') return undefined;
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
    const host = match?.[1] ?? match?.[2] ?? '';
    const portNumber = Number(match?.[3]);
    const version = isIP(host);
    if (match === null || version === 0 || (version === 6) !== (match[1] !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be IP:PORT such as 127.0.0.1:9464 ([::1]:9464 for IPv6), or off',
      });
      return z.NEVER;
    }
    if (portNumber < 1 || portNumber > 65535) {
      ctx.addIssue({ code: 'custom', message: 'the port must be between 1 and 65535' });
      return z.NEVER;
    }
    return { host, port: portNumber };
  });

const environmentSchema = z.object({
  PORTAL_HOST: hostname.default('portal.localhost'),
  PORTAL_PORT: port.default(8443),
  PORTAL_PUBLIC_PORT: port.optional(),
  PORTAL_LISTEN_ADDRESS: z
    .string()
    .trim()
    .refine((value) => isIP(value) !== 0, { error: 'must be an IP address such as 0.0.0.0' })
    .optional(),
  PORTAL_DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: databaseUrl,
  PORTAL_DEPLOYMENT: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, {
      error: 'must be 1 to 63 letters, digits, "-" or "_", starting with a letter or digit',
    })
    .optional(),
  TAK_HOST: hostname.optional(),
  TAK_PORT: port.default(8089),
  PORTAL_TAK_ENROLL_PORT: z
    .string()
    .trim()
    .default('8446')
    .transform((value, ctx) => {
      if (value.toLowerCase() === 'off') return undefined;
      const parsed = port.safeParse(value);
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: 'must be a port number, or off' });
      return z.NEVER;
    }),
  PORTAL_TAK_ENROLL_PUBLIC_PORT: port.optional(),
  PORTAL_TAK_ENROLL_TLS_CERT: optionalText,
  PORTAL_TAK_ENROLL_TLS_KEY: optionalText,
  PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: z
    .string()
    .trim()
    .toLowerCase()
    .refine((value) => value === '' || value === 'true' || value === 'false', {
      error: 'must be true or false',
    })
    .transform((value) => (value === '' ? undefined : value === 'true'))
    .optional(),
  PORTAL_TAK_ENROLL_TOKEN_MINUTES: positiveInt(24 * 60).default(15),
  PORTAL_TAK_TRUSTSTORE_PEM: optionalText,
  PORTAL_TAK_TRUSTSTORE_PASSWORD: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(128, { error: 'must be at most 128 characters' })
    // eslint-disable-next-line no-control-regex
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), {
      error: 'must not contain control characters',
    })
    .default('public'),
  PORTAL_IDM_CONSOLE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .optional(),
  PORTAL_IDM_REALM: optionalText,
  PORTAL_TRUSTED_PROXIES: addressList,
  PORTAL_TAK_SERVER_ADDRESSES: addressList,
  PORTAL_PROXY_SECRET_FILE: optionalText,
  PORTAL_TLS_MODE: z
    .enum(['builtin', 'proxy'], {
      error: 'must be builtin (the portal terminates TLS) or proxy (behind nginx, plain HTTP)',
    })
    .default('builtin'),
  PORTAL_TLS_CERT: optionalText,
  PORTAL_TLS_KEY: optionalText,
  PORTAL_CA_PASSPHRASE: optionalText,
  PORTAL_WEB_DIR: optionalText,
  PORTAL_BRANDING: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, {
      error: 'must be the name of a folder in apps/server/branding, such as neutral',
    })
    .default('neutral'),
  PORTAL_CERT_VALIDITY_DAYS: positiveInt(3650).default(365),
  PORTAL_CERT_BACKDATE_MINUTES: wholeNumber(7 * 24 * 60).default(720),
  PORTAL_CRL_VALIDITY_DAYS: positiveInt(365).default(14),
  PORTAL_KEY_ALGORITHM: z.enum(KEY_ALGORITHMS).default('rsa-2048'),
  PORTAL_KEYS_PER_HOUR: positiveInt(1_000_000).default(10),
  PORTAL_MAX_KEYS_PER_MEMBER: positiveInt(1000).default(10),
  PORTAL_KEY_POOL_SIZE: wholeNumber(1024).default(16),
  PORTAL_KEY_POOL_LOW_WATER: wholeNumber(1023).optional(),
  PORTAL_ADMIN_CODE_TTL_HOURS: positiveInt(24 * 30).default(24),
  PORTAL_EXCHANGE_CODE_TTL_MINUTES: positiveInt(60).default(5),
  PORTAL_FIRST_ADMIN_TOKEN_MINUTES: positiveInt(24 * 60).default(15),
  PORTAL_MEMBER_TOKEN_HOURS: positiveInt(24 * 30).default(24),
  PORTAL_ENROLLMENT_GRACE_DAYS: positiveInt(365).default(7),
  PORTAL_RESERVED_CALLSIGNS: reservedCallsigns,
  PORTAL_RATE_LIMIT_FAILURES: positiveInt(100_000).default(120),
  PORTAL_RATE_LIMIT_WINDOW_MINUTES: positiveInt(24 * 60).default(10),
  PORTAL_GUESS_CEILING_PER_MINUTE: positiveInt(1_000_000).default(240),
  PORTAL_BODY_LIMIT_BYTES: positiveInt(10 * 1024 * 1024).default(64 * 1024),
  PORTAL_MAX_CONNECTIONS: positiveInt(1_000_000).default(1024),
  PORTAL_MAX_UNPROVEN_PER_ADDRESS: positiveInt(1_000_000).optional(),
  PORTAL_MAX_CONNECTIONS_PER_ADDRESS: positiveInt(1_000_000).optional(),
  PORTAL_LOG_LEVEL: logLevel.default('info'),
  PORTAL_METRICS_ADDRESS: metricsAddress,
  PORTAL_LDAP_URL: z
    .url({ protocol: /^ldaps?$/, error: 'must be an ldap:// or ldaps:// URL' })
    .optional(),
  PORTAL_LDAP_BIND_DN: optionalText,
  PORTAL_LDAP_BIND_PASSWORD_FILE: optionalText,
  PORTAL_LDAP_BASE_DN: optionalText,
  PORTAL_LDAP_GROUP_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/, {
      error: 'must be 1 to 32 letters, digits, "_", "." or "-", starting with a letter or digit',
    })
    .default('tak_'),
});

/** Every environment variable the portal reads (docs/deployment.md lists each one). */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(environmentSchema.shape);

/**
 * `builtin`: one TLS listener for both faces (SNI). `proxy`: plain HTTP behind a reverse proxy
 * that terminates TLS and forwards the client certificate it verified (docs/api.md).
 */
export type TlsMode = 'builtin' | 'proxy';

/** The directory the portal publishes to (docs/directory.md). */
export interface LdapConfig {
  url: string;
  bindDn: string;
  /** Read once at start from `PORTAL_LDAP_BIND_PASSWORD_FILE` (trimmed). */
  bindPassword: string;
  /** The subtree the portal owns; it must exist. */
  baseDn: string;
  groupPrefix: string;
}

export interface Config {
  /** Public DNS name of the deployment (`{host}`); the mTLS face is `mtls.{host}`. */
  host: string;
  mtlsHost: string;
  /** Port the listener binds: built-in TLS, or plain HTTP behind the proxy. */
  port: number;
  tlsMode: TlsMode;
  /** Port that appears in links people open (differs from `port` behind a port forward). */
  publicPort: number;
  listenAddress: string;
  /** `https://{host}[:{port}]`, the port left out when it is 443. */
  publicOrigin: string;
  mtlsOrigin: string;
  /**
   * `http://{host}[:{port}]`, the port left out when it is 80: where relying parties fetch the
   * CA's files in plain HTTP, so the CRL, OCSP and caIssuers URLs in certificates start with it
   * (docs/api.md). Built-in TLS answers plain HTTP on its own port, so the port is the public
   * one; behind the proxy it is nginx's port-80 server block, so the port is 80.
   */
  httpCaOrigin: string;
  dataDir: string;
  caDir: string;
  tlsDir: string;
  sqliteFile: string;
  databaseUrl: string | undefined;
  deployment: string;
  takHost: string;
  takPort: number;
  /** PEM file whose certificates go into the TAK truststore; absent: the portal's CA chain. */
  takTruststorePemFile: string | undefined;
  /** Password of the truststore in the TAK settings packages. */
  takTruststorePassword: string;
  /**
   * The TAK enrollment face (`{takHost}:{port}`, the TAK certificate-enrollment protocol); absent
   * when `PORTAL_TAK_ENROLL_PORT=off`. `port` is what this process binds (TLS when built in,
   * plain HTTP behind the proxy); `publicPort` is what clients reach (nginx's port in proxy mode).
   */
  takEnroll: TakEnrollConfig | undefined;
  /** The LDAP directory to publish members and groups to; absent: none (the default). */
  ldap: LdapConfig | undefined;
  idmConsoleUrl: string;
  /**
   * Whether the operator set up an identity-management console (`PORTAL_IDM_CONSOLE_URL` or
   * `PORTAL_IDM_REALM` given): without one the default address points nowhere, and the admin
   * area shows no link (issue 31).
   */
  idmConsoleConfigured: boolean;
  trustedProxies: string[];
  /**
   * The addresses (or CIDR ranges) TAK Servers ask from (`PORTAL_TAK_SERVER_ADDRESSES`): only
   * their OCSP requests count as presence; empty: those of addresses that fetched the CRL.
   */
  takServerAddresses: string[];
  /**
   * The secret the proxy sends beside a forwarded certificate (`PORTAL_PROXY_SECRET_FILE`,
   * required in proxy mode); undefined with built-in TLS, where no proxy forwards one.
   */
  proxySecret: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  caPassphrase: string | undefined;
  webDir: string;
  /** Name of the branding set (`PORTAL_BRANDING`): the `dynamic` translations of the web app. */
  branding: string;
  /** `apps/server/branding/{branding}`: holds `locales/{lng}/dynamic.json`. */
  brandingDir: string;
  certificateValidityDays: number;
  /**
   * How far before its issue a member or server certificate becomes valid
   * (`PORTAL_CERT_BACKDATE_MINUTES`, 720: TAK Server's value, for phones with a slow clock).
   */
  certBackdateMs: number;
  /**
   * How far ahead the CRL's `nextUpdate` lies (docs/api.md): a TAK Server refuses every client
   * once the CRL it loaded is past it, so it must outlast the operator's reload interval.
   */
  crlValidityDays: number;
  keyAlgorithm: KeyAlgorithm;
  /** New certificates a member may be issued in any rolling hour, counted in the database. */
  keysPerHour: number;
  /** Live keys a member may hold; issuing one more revokes the oldest (`superseded`). */
  maxKeysPerMember: number;
  /**
   * Key pairs of `keyAlgorithm` made ahead in a worker thread and held in memory
   * (`PORTAL_KEY_POOL_SIZE`); 0: no pool, every key is made on its request.
   */
  keyPoolSize: number;
  /** The pool refills when it holds this many or fewer (`PORTAL_KEY_POOL_LOW_WATER`). */
  keyPoolLowWater: number;
  adminCodeTtlMs: number;
  exchangeCodeTtlMs: number;
  firstAdminTokenTtlMs: number;
  memberTokenTtlMs: number;
  enrollmentGraceMs: number;
  /** Callsigns nobody may take, lower-cased: the built-in ones and `PORTAL_RESERVED_CALLSIGNS`. */
  reservedCallsigns: readonly string[];
  /** The failure budget (docs/api.md): failed guesses per client address and window. */
  rateLimitFailures: number;
  rateLimitWindowMs: number;
  /** Failed guesses a minute across the deployment before every stranger is slowed. */
  guessCeilingPerMinute: number;
  bodyLimitBytes: number;
  /** Most connections open at once on the listener; the next is closed at accept. */
  maxConnections: number;
  /** Most connections of one address before their TLS handshake and first request are done. */
  maxUnprovenPerAddress: number;
  /** Most connections of one address, whatever they are doing (docs/deployment.md). */
  maxConnectionsPerAddress: number;
  logLevel: z.infer<typeof logLevel>;
  /** The Prometheus listener (`PORTAL_METRICS_ADDRESS`); undefined: no metrics listener. */
  metricsAddress: ListenAddress | undefined;
  version: string;
}

export interface TakEnrollConfig {
  port: number;
  publicPort: number;
  /** Operator-given certificate files for `{takHost}` (e.g. Let's Encrypt); built-in TLS only. */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /**
   * Proxy mode: whether phones trust nginx's certificate of the 8446 server block by themselves
   * (`PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED`, default false), which the portal cannot see. Built-in
   * TLS: undefined, the portal computes it from the face's certificate at start
   * (modules/tak/enrollment-face-trust.ts).
   */
  publiclyTrusted: boolean | undefined;
  /** How long an enrollment token lives (`PORTAL_TAK_ENROLL_TOKEN_MINUTES`). */
  tokenTtlMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The branding sets shipped with the service (`apps/server/branding`). */
export const BRANDING_ROOT = fileURLToPath(new URL('../branding', import.meta.url));

/** The branding set must exist and hold at least English `dynamic` translations. */
function checkBrandingSet(name: string): string {
  const dir = path.join(BRANDING_ROOT, name);
  if (!existsSync(path.join(dir, 'locales', 'en', 'dynamic.json'))) {
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_BRANDING: no branding set "${name}" (expected ${path.join(dir, 'locales', 'en', 'dynamic.json')})`,
    );
  }
  return dir;
}

/** The built web app, next to this package in the repository (`apps/web/dist`). */
function defaultWebDir(): string {
  return fileURLToPath(new URL('../../web/dist', import.meta.url));
}

function originOf(host: string, port: number): string {
  return port === 443 ? `https://${host}` : `https://${host}:${port}`;
}

function httpOriginOf(host: string, port: number): string {
  return port === 80 ? `http://${host}` : `http://${host}:${port}`;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const variable = issue.path.join('.');
      return `  ${variable}: ${issue.message}`;
    })
    .join('\n');
}

/** The truststore file must be there at start and hold at least one PEM certificate. */
function checkTruststorePem(file: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_TAK_TRUSTSTORE_PEM: cannot read ${file} (${reason})`,
    );
  }
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(text)) {
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_TAK_TRUSTSTORE_PEM: ${file} holds no PEM certificate`,
    );
  }
}

/** What nginx can put between quotes in `proxy_set_header` as it is: no space, quote or `$`. */
const PROXY_SECRET_PATTERN = /^[A-Za-z0-9+/=._~-]+$/;
const PROXY_SECRET_MIN_LENGTH = 32;

/** The proxy's secret, read once at start from its file (trimmed). */
function readProxySecret(file: string): string {
  const invalid = (reason: string) =>
    new ConfigError(`Invalid configuration:\n  PORTAL_PROXY_SECRET_FILE: ${reason}`);
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(`cannot read ${file} (${reason})`);
  }
  if (secret.length < PROXY_SECRET_MIN_LENGTH) {
    throw invalid(
      `${file} must hold at least ${PROXY_SECRET_MIN_LENGTH} characters (openssl rand -base64 32)`,
    );
  }
  if (!PROXY_SECRET_PATTERN.test(secret)) {
    throw invalid(
      `${file} must hold letters, digits and + / = . _ ~ - only (openssl rand -base64 32)`,
    );
  }
  return secret;
}

/** A DN as an operator writes it: `attr=value` parts joined by commas. */
const DN_PATTERN = /^[A-Za-z][A-Za-z0-9-]*=[^,=]+(,\s*[A-Za-z][A-Za-z0-9-]*=[^,=]+)*$/;

/** The directory's settings: all of URL, bind DN, password file and base DN, or none. */
function ldapConfig(
  settings: z.infer<typeof environmentSchema>,
  cwd: string,
): LdapConfig | undefined {
  const given = {
    PORTAL_LDAP_URL: settings.PORTAL_LDAP_URL,
    PORTAL_LDAP_BIND_DN: settings.PORTAL_LDAP_BIND_DN,
    PORTAL_LDAP_BIND_PASSWORD_FILE: settings.PORTAL_LDAP_BIND_PASSWORD_FILE,
    PORTAL_LDAP_BASE_DN: settings.PORTAL_LDAP_BASE_DN,
  };
  const missing = Object.entries(given).filter(([, value]) => value === undefined);
  if (missing.length === 4) return undefined;
  if (missing.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.map(([name]) => name).join(', ')}: required with the other PORTAL_LDAP_* settings (URL, bind DN, bind password file, base DN)`,
    );
  }
  const { PORTAL_LDAP_BIND_DN: bindDn, PORTAL_LDAP_BASE_DN: baseDn } = settings;
  for (const [name, dn] of [
    ['PORTAL_LDAP_BIND_DN', bindDn],
    ['PORTAL_LDAP_BASE_DN', baseDn],
  ] as const) {
    if (dn === undefined || !DN_PATTERN.test(dn)) {
      throw new ConfigError(
        `Invalid configuration:\n  ${name}: must be a distinguished name such as ou=callsign-portal,dc=unit,dc=example`,
      );
    }
  }
  const file = path.resolve(cwd, settings.PORTAL_LDAP_BIND_PASSWORD_FILE ?? '');
  let bindPassword: string;
  try {
    bindPassword = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_LDAP_BIND_PASSWORD_FILE: cannot read ${file} (${reason})`,
    );
  }
  if (bindPassword === '') {
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_LDAP_BIND_PASSWORD_FILE: ${file} is empty`,
    );
  }
  return {
    url: settings.PORTAL_LDAP_URL ?? '',
    bindDn: bindDn ?? '',
    bindPassword,
    baseDn: baseDn ?? '',
    groupPrefix: settings.PORTAL_LDAP_GROUP_PREFIX,
  };
}

function takEnrollConfig(
  settings: z.infer<typeof environmentSchema>,
  tlsMode: TlsMode,
  cwd: string,
): TakEnrollConfig | undefined {
  const certFile = settings.PORTAL_TAK_ENROLL_TLS_CERT;
  const keyFile = settings.PORTAL_TAK_ENROLL_TLS_KEY;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TAK_ENROLL_TLS_CERT, PORTAL_TAK_ENROLL_TLS_KEY: give both files or neither',
    );
  }
  if (tlsMode === 'proxy' && certFile !== undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TAK_ENROLL_TLS_CERT, PORTAL_TAK_ENROLL_TLS_KEY: not used when PORTAL_TLS_MODE=proxy (nginx holds the certificate of the 8446 server block); remove them',
    );
  }
  const publiclyTrusted = settings.PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED;
  if (tlsMode === 'builtin' && publiclyTrusted !== undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: only for PORTAL_TLS_MODE=proxy (with built-in TLS the portal checks the enrollment face’s own certificate against the roots phones trust); remove it',
    );
  }
  const port = settings.PORTAL_TAK_ENROLL_PORT;
  if (port === undefined) return undefined;
  if (port === settings.PORTAL_PORT) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TAK_ENROLL_PORT: must differ from PORTAL_PORT (the enrollment face is a listener of its own), or be off',
    );
  }
  return {
    port,
    // Behind the proxy, clients reach nginx's 8446 (ATAK's fixed enrollment port).
    publicPort: settings.PORTAL_TAK_ENROLL_PUBLIC_PORT ?? (tlsMode === 'proxy' ? 8446 : port),
    tlsCertFile: certFile === undefined ? undefined : path.resolve(cwd, certFile),
    tlsKeyFile: keyFile === undefined ? undefined : path.resolve(cwd, keyFile),
    publiclyTrusted: tlsMode === 'proxy' ? (publiclyTrusted ?? false) : undefined,
    tokenTtlMs: settings.PORTAL_TAK_ENROLL_TOKEN_MINUTES * MINUTE,
  };
}

export interface LoadConfigOptions {
  /** Directory relative paths are resolved against (the working directory by default). */
  cwd?: string;
  version?: string;
}

/** Validates the environment into settings; throws ConfigError naming every bad variable. */
export function loadConfig(
  env: Record<string, string | undefined>,
  options: LoadConfigOptions = {},
): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid configuration:\n${describeIssues(parsed.error)}`);
  }
  const settings = parsed.data;
  if ((settings.PORTAL_TLS_CERT === undefined) !== (settings.PORTAL_TLS_KEY === undefined)) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TLS_CERT, PORTAL_TLS_KEY: give both files or neither',
    );
  }
  const tlsMode = settings.PORTAL_TLS_MODE;
  if (tlsMode === 'proxy' && settings.PORTAL_TRUSTED_PROXIES.length === 0) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TRUSTED_PROXIES: must name the proxy (address or CIDR range) when PORTAL_TLS_MODE=proxy',
    );
  }
  if (tlsMode === 'proxy' && settings.PORTAL_PROXY_SECRET_FILE === undefined) {
    throw new ConfigError(
      "Invalid configuration:\n  PORTAL_PROXY_SECRET_FILE: required when PORTAL_TLS_MODE=proxy: without it any local process that reaches the listener could forge a member's certificate headers",
    );
  }
  if (tlsMode === 'proxy' && settings.PORTAL_TLS_CERT !== undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_TLS_CERT, PORTAL_TLS_KEY: not used when PORTAL_TLS_MODE=proxy (the proxy holds the certificate); remove them',
    );
  }
  if (tlsMode !== 'proxy' && settings.PORTAL_PROXY_SECRET_FILE !== undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  PORTAL_PROXY_SECRET_FILE: only used when PORTAL_TLS_MODE=proxy (no proxy forwards a certificate); remove it',
    );
  }
  const keyPoolSize = settings.PORTAL_KEY_POOL_SIZE;
  // Half the pool by default: a refill is a run of keys, not a key after every download.
  const keyPoolLowWater = settings.PORTAL_KEY_POOL_LOW_WATER ?? Math.floor(keyPoolSize / 2);
  if (keyPoolSize > 0 && keyPoolLowWater >= keyPoolSize) {
    throw new ConfigError(
      `Invalid configuration:\n  PORTAL_KEY_POOL_LOW_WATER: must be less than PORTAL_KEY_POOL_SIZE (${keyPoolSize})`,
    );
  }
  const maxUnprovenPerAddress =
    settings.PORTAL_MAX_UNPROVEN_PER_ADDRESS ??
    Math.max(1, Math.floor(settings.PORTAL_MAX_CONNECTIONS / 4));
  const maxConnectionsPerAddress =
    settings.PORTAL_MAX_CONNECTIONS_PER_ADDRESS ??
    Math.max(1, Math.floor(settings.PORTAL_MAX_CONNECTIONS / 2));
  for (const [name, value] of [
    ['PORTAL_MAX_UNPROVEN_PER_ADDRESS', maxUnprovenPerAddress],
    ['PORTAL_MAX_CONNECTIONS_PER_ADDRESS', maxConnectionsPerAddress],
  ] as const) {
    if (value > settings.PORTAL_MAX_CONNECTIONS) {
      throw new ConfigError(
        `Invalid configuration:\n  ${name}: must be at most PORTAL_MAX_CONNECTIONS (${settings.PORTAL_MAX_CONNECTIONS})`,
      );
    }
  }
  const cwd = options.cwd ?? process.cwd();
  const takEnroll = takEnrollConfig(settings, tlsMode, cwd);
  const host = settings.PORTAL_HOST;
  const mtlsHost = `mtls.${host}`;
  // Behind a proxy the port people use is the proxy's (443), not the plain-HTTP one bound here.
  const publicPort =
    settings.PORTAL_PUBLIC_PORT ?? (tlsMode === 'proxy' ? 443 : settings.PORTAL_PORT);
  const deployment = settings.PORTAL_DEPLOYMENT ?? host.split('.')[0] ?? host;
  const dataDir = path.resolve(cwd, settings.PORTAL_DATA_DIR);
  const realm = settings.PORTAL_IDM_REALM ?? deployment;
  const takTruststorePemFile =
    settings.PORTAL_TAK_TRUSTSTORE_PEM === undefined
      ? undefined
      : path.resolve(cwd, settings.PORTAL_TAK_TRUSTSTORE_PEM);
  if (takTruststorePemFile !== undefined) checkTruststorePem(takTruststorePemFile);
  const brandingDir = checkBrandingSet(settings.PORTAL_BRANDING);
  // A laptop demo on *.localhost stays on loopback; a real host name is meant to be reached.
  // Plain HTTP behind a proxy stays on loopback unless the operator names a private address.
  const listenAddress =
    settings.PORTAL_LISTEN_ADDRESS ??
    (tlsMode === 'proxy' || host === 'localhost' || host.endsWith('.localhost')
      ? '127.0.0.1'
      : '0.0.0.0');

  return {
    host,
    mtlsHost,
    port: settings.PORTAL_PORT,
    tlsMode,
    publicPort,
    listenAddress,
    publicOrigin: originOf(host, publicPort),
    mtlsOrigin: originOf(mtlsHost, publicPort),
    httpCaOrigin: httpOriginOf(host, tlsMode === 'proxy' ? 80 : publicPort),
    dataDir,
    caDir: path.join(dataDir, 'ca'),
    tlsDir: path.join(dataDir, 'tls'),
    sqliteFile: path.join(dataDir, 'portal.sqlite'),
    databaseUrl: settings.DATABASE_URL,
    deployment,
    takHost: settings.TAK_HOST ?? `tak.${host}`,
    takPort: settings.TAK_PORT,
    takTruststorePemFile,
    takTruststorePassword: settings.PORTAL_TAK_TRUSTSTORE_PASSWORD,
    takEnroll,
    ldap: ldapConfig(settings, cwd),
    idmConsoleUrl:
      settings.PORTAL_IDM_CONSOLE_URL ??
      `https://${host}:9443/admin/${encodeURIComponent(realm)}/console/`,
    idmConsoleConfigured:
      settings.PORTAL_IDM_CONSOLE_URL !== undefined || settings.PORTAL_IDM_REALM !== undefined,
    trustedProxies: settings.PORTAL_TRUSTED_PROXIES,
    takServerAddresses: settings.PORTAL_TAK_SERVER_ADDRESSES,
    proxySecret:
      settings.PORTAL_PROXY_SECRET_FILE === undefined
        ? undefined
        : readProxySecret(path.resolve(cwd, settings.PORTAL_PROXY_SECRET_FILE)),
    tlsCertFile:
      settings.PORTAL_TLS_CERT === undefined
        ? undefined
        : path.resolve(cwd, settings.PORTAL_TLS_CERT),
    tlsKeyFile:
      settings.PORTAL_TLS_KEY === undefined
        ? undefined
        : path.resolve(cwd, settings.PORTAL_TLS_KEY),
    caPassphrase: settings.PORTAL_CA_PASSPHRASE,
    webDir:
      settings.PORTAL_WEB_DIR === undefined
        ? defaultWebDir()
        : path.resolve(cwd, settings.PORTAL_WEB_DIR),
    branding: settings.PORTAL_BRANDING,
    brandingDir,
    certificateValidityDays: settings.PORTAL_CERT_VALIDITY_DAYS,
    certBackdateMs: settings.PORTAL_CERT_BACKDATE_MINUTES * MINUTE,
    crlValidityDays: settings.PORTAL_CRL_VALIDITY_DAYS,
    keyAlgorithm: settings.PORTAL_KEY_ALGORITHM,
    keysPerHour: settings.PORTAL_KEYS_PER_HOUR,
    maxKeysPerMember: settings.PORTAL_MAX_KEYS_PER_MEMBER,
    keyPoolSize,
    keyPoolLowWater,
    adminCodeTtlMs: settings.PORTAL_ADMIN_CODE_TTL_HOURS * HOUR,
    exchangeCodeTtlMs: settings.PORTAL_EXCHANGE_CODE_TTL_MINUTES * MINUTE,
    firstAdminTokenTtlMs: settings.PORTAL_FIRST_ADMIN_TOKEN_MINUTES * MINUTE,
    memberTokenTtlMs: settings.PORTAL_MEMBER_TOKEN_HOURS * HOUR,
    enrollmentGraceMs: settings.PORTAL_ENROLLMENT_GRACE_DAYS * DAY,
    reservedCallsigns: settings.PORTAL_RESERVED_CALLSIGNS,
    rateLimitFailures: settings.PORTAL_RATE_LIMIT_FAILURES,
    rateLimitWindowMs: settings.PORTAL_RATE_LIMIT_WINDOW_MINUTES * MINUTE,
    guessCeilingPerMinute: settings.PORTAL_GUESS_CEILING_PER_MINUTE,
    bodyLimitBytes: settings.PORTAL_BODY_LIMIT_BYTES,
    maxConnections: settings.PORTAL_MAX_CONNECTIONS,
    maxUnprovenPerAddress,
    maxConnectionsPerAddress,
    logLevel: settings.PORTAL_LOG_LEVEL,
    metricsAddress: settings.PORTAL_METRICS_ADDRESS,
    version: options.version ?? '0.0.0',
  };
}

/**
 * Reads `.env` from the working directory (if there is one) into the process environment, then
 * validates it. Variables already set in the environment win over the file.
 */
export function loadConfigFromProcess(version: string): Config {
  const envFile = path.resolve(process.cwd(), '.env');
  if (existsSync(envFile)) {
    process.loadEnvFile(envFile);
  }
  return loadConfig(process.env, { version });
}
