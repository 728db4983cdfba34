import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { seedTestCa } from '../../src/ca/test-ca.testing.js';
import { testKeySupply } from '../../src/ca/test-key-stock.testing.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openPortal, type Portal } from '../../src/portal.js';
import {
  CLIENT_CERT_HEADER,
  CLIENT_VERIFY_HEADER,
  PROXY_SECRET_HEADER,
} from '../../src/tls/forwarded-certificate.js';
import type { ApiRequestOptions, ApiResponse, Face } from './api-client.js';
import { memberFixtures, type MemberFixtures } from './member-fixtures.js';
import { certificateInPfx } from './pfx-files.js';

// The inject tier: the whole app (hooks, routes, services, a migrated database, the CA) called
// in-process with app.inject(), without a listener or TLS, as fastify/demo's test helper does.
// It runs the app as it runs behind the reverse proxy (PORTAL_TLS_MODE=proxy): the face is the
// Host header, and a key is presented as the proxy forwards it (the certificate in
// X-SSL-Client-Cert from a trusted proxy address), which the app verifies against its CA and
// its record as it does every certificate. That is the only seam, and the shipped one: the TLS
// handshake itself is tested in the TLS tier (test/*.test.ts), never here.

/**
 * A migrated portal (the run's test CA and its stock of member keys, SQLite unless `env` names
 * a database), not listening.
 */
export interface OpenedTestPortal {
  portal: Portal;
  config: Config;
  workDir: string;
  dataDir: string;
  /** Closes the database and removes everything the portal wrote. */
  destroy(): Promise<void>;
}

export interface OpenTestPortalOptions {
  env?: Record<string, string>;
  /** As the service reports it (`/api/v1/healthcheck`, the OpenAPI document). */
  version?: string;
  /** The portal's clock (`openPortal`'s `now`); tests may move it. */
  now?: () => Date;
  /** Start the LDAP reconciler (`PORTAL_LDAP_*` in `env`), with these timings. */
  directorySync?: { periodMs?: number; retryMs?: number; maxRetryMs?: number };
  /** Pack keystores and truststores in worker threads, as the service does. */
  packInWorkers?: boolean;
  /** Proxy mode's secret (`PORTAL_PROXY_SECRET_FILE`), written to a file of the work folder. */
  proxySecret?: string;
}

/** Opens a portal as the service's start-up does, in a fresh temporary directory. */
export async function openTestPortal(
  options: OpenTestPortalOptions = {},
): Promise<OpenedTestPortal> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-test-'));
  const dataDir = path.join(workDir, 'data');
  const secretFile = path.join(workDir, 'proxy-secret');
  if (options.proxySecret !== undefined) {
    await writeFile(secretFile, options.proxySecret, { mode: 0o600 });
  }
  const config = loadConfig(
    {
      PORTAL_DATA_DIR: dataDir,
      PORTAL_WEB_DIR: path.join(workDir, 'web'),
      PORTAL_LOG_LEVEL: 'silent',
      ...(options.proxySecret === undefined ? {} : { PORTAL_PROXY_SECRET_FILE: secretFile }),
      ...options.env,
    },
    { version: options.version ?? '0.0.0-test' },
  );
  if (config.caPassphrase === undefined) await seedTestCa(config.caDir, config.host);
  const keysMadeAhead = await testKeySupply();
  const portal = await openPortal(config, {
    migrate: true,
    ...(keysMadeAhead === undefined ? {} : { keysMadeAhead }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.packInWorkers === true ? { packInWorkers: true } : {}),
    ...(options.directorySync === undefined
      ? {}
      : { directorySync: true, directoryTimings: options.directorySync }),
  });
  return {
    portal,
    config,
    workDir,
    dataDir,
    async destroy() {
      await portal.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

export interface InjectPortal extends OpenedTestPortal, MemberFixtures {
  app: FastifyInstance;
  host: string;
  /** The origin of a face, as the portal's own pages send it in `Origin`. */
  origin(face: Face): string;
  /** A call to the app as a browser's request arrives through the proxy on that face. */
  api(face: Face, method: string, path: string, options?: ApiRequestOptions): Promise<ApiResponse>;
}

/** The nginx address the inject tier's requests come from (PORTAL_TRUSTED_PROXIES). */
const PROXY_ADDRESS = '127.0.0.1';
/** The secret nginx sends beside a forwarded certificate (PORTAL_PROXY_SECRET_FILE). */
const INJECT_PROXY_SECRET = 'aW5qZWN0IHRpZXIgcHJveHkgc2VjcmV0LCB0ZXN0cyBvbmx5';

/** The headers the proxy's mTLS server block sets for a certificate it verified as `verdict`. */
export function forwardedBy(certificatePem: string, verdict = 'SUCCESS'): Record<string, string> {
  return {
    [CLIENT_CERT_HEADER]: encodeURIComponent(certificatePem),
    [CLIENT_VERIFY_HEADER]: verdict,
    [PROXY_SECRET_HEADER]: INJECT_PROXY_SECRET,
  };
}

/** The member certificate in a key: given beside the .pfx, or read out of it as a TLS client would. */
async function certificateOf(key: NonNullable<ApiRequestOptions['key']>): Promise<string> {
  return key.certificatePem ?? certificateInPfx(key);
}

export interface OpenInjectPortalOptions extends OpenTestPortalOptions {
  /** Where the app's log lines go (at PORTAL_LOG_LEVEL); without it the app logs nothing. */
  logStream?: { write(line: string): void };
}

/** Opens a portal and builds its app for app.inject(); `api` calls it as TestPortal.api does over TLS. */
export async function openInjectPortal(
  options: OpenInjectPortalOptions = {},
): Promise<InjectPortal> {
  const opened = await openTestPortal({
    proxySecret: INJECT_PROXY_SECRET,
    ...options,
    env: { PORTAL_TLS_MODE: 'proxy', PORTAL_TRUSTED_PROXIES: PROXY_ADDRESS, ...options.env },
  });
  const { config, portal } = opened;
  let app: FastifyInstance;
  try {
    const { logStream } = options;
    app = await buildApp(portal, logStream === undefined ? { logger: false } : { logStream });
    await app.ready();
  } catch (error) {
    await opened.destroy();
    throw error;
  }
  const hostOf = (face: Face) => (face === 'mtls' ? config.mtlsHost : config.host);
  return {
    ...opened,
    ...memberFixtures(portal, opened.workDir),
    app,
    host: config.host,
    origin: (face) => (face === 'mtls' ? config.mtlsOrigin : config.publicOrigin),
    async api(face, method, urlPath, apiOptions = {}) {
      const headers: Record<string, string> = { host: hostOf(face), ...apiOptions.headers };
      let payload: string | Buffer | undefined;
      if (apiOptions.json !== undefined) {
        payload = JSON.stringify(apiOptions.json);
        headers['content-type'] = 'application/json';
      } else if (apiOptions.raw !== undefined) {
        payload = apiOptions.raw;
        if (apiOptions.contentType !== undefined) headers['content-type'] = apiOptions.contentType;
      } else if (method !== 'GET' && method !== 'HEAD') {
        // As the web app sends every call: a JSON content type, also without a body.
        headers['content-type'] = apiOptions.contentType ?? 'application/json';
      }
      if (apiOptions.bearer !== undefined) headers.authorization = `Bearer ${apiOptions.bearer}`;
      // The proxy's mTLS server block forwards the certificate it verified; the public one never does.
      if (face === 'mtls' && apiOptions.key !== undefined) {
        Object.assign(headers, forwardedBy(await certificateOf(apiOptions.key)));
      }
      const response = await app.inject({
        method: method as 'GET',
        url: urlPath,
        headers,
        remoteAddress: PROXY_ADDRESS,
        ...(payload === undefined ? {} : { payload }),
      });
      const responseHeaders: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) {
          responseHeaders[name] = typeof value === 'number' ? String(value) : value;
        }
      }
      return {
        status: response.statusCode,
        headers: responseHeaders,
        body: response.rawPayload,
        text: response.payload,
        json: () => JSON.parse(response.payload) as unknown,
      };
    },
    async destroy() {
      await app.close();
      await opened.destroy();
    },
  };
}
