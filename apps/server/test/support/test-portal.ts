import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { seedTestCa } from '../../src/ca/test-ca.testing.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startPortal, type RunningPortal } from '../../src/server.js';
import { callApi, type ApiRequestOptions, type ApiResponse } from './api-client.js';
import { memberFixtures, type MemberFixtures, type MemberKey } from './member-fixtures.js';
import { curlFace, freePort, type RunResult } from './processes.js';

export type { MemberKey };

export type Face = 'public' | 'mtls';

export interface TestPortal extends RunningPortal, MemberFixtures {
  config: Config;
  dataDir: string;
  workDir: string;
  host: string;
  origin(face: Face): string;
  /** File holding the CA chain, for curl's --cacert and openssl's -CAfile. */
  chainFile: string;
  /** An HTTPS call to this portal over real TLS (SNI and Host name the face). */
  api(face: Face, method: string, path: string, options?: ApiRequestOptions): Promise<ApiResponse>;
  /** curl over real TLS to this portal (names resolved to 127.0.0.1), printing the status code. */
  curl(
    face: Face,
    urlPath: string,
    extra?: string[],
  ): Promise<RunResult & { status: number; body: string }>;
  /** Stops the server but keeps the data directory (to start again on it). */
  stop(): Promise<void>;
  /** Stops the server and removes everything it wrote. */
  destroy(): Promise<void>;
}

export interface StartTestPortalOptions {
  dataDir?: string;
  env?: Record<string, string>;
}

/** The real service on a free port, with its own data directory, SQLite unless env says else. */
export async function startTestPortal(options: StartTestPortalOptions = {}): Promise<TestPortal> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-test-'));
  const dataDir = options.dataDir ?? path.join(workDir, 'data');
  const port = await freePort();
  const config = loadConfig(
    {
      PORTAL_PORT: String(port),
      PORTAL_TAK_ENROLL_PORT: String(await freePort()),
      PORTAL_DATA_DIR: dataDir,
      PORTAL_WEB_DIR: path.join(workDir, 'web'),
      PORTAL_LOG_LEVEL: 'silent',
      // Tests run side by side: a test that scrapes gives its own address.
      PORTAL_METRICS_ADDRESS: 'off',
      // No keys made ahead on a machine the tests share; the pool's own tests turn it on.
      PORTAL_KEY_POOL_SIZE: '0',
      ...options.env,
    },
    { version: '0.0.0-test' },
  );
  if (config.caPassphrase === undefined) await seedTestCa(config.caDir, config.host);
  const running = await startPortal(config, { logger: false });
  const chainFile = path.join(workDir, 'chain.pem');
  await writeFile(chainFile, running.portal.ca.chainPem);
  const host = config.host;
  const origin = (face: Face) => `https://${face === 'mtls' ? config.mtlsHost : host}:${port}`;
  let stopped = false;

  return {
    ...running,
    ...memberFixtures(running.portal, workDir),
    config,
    dataDir,
    workDir,
    host,
    chainFile,
    origin,
    api(face, method, urlPath, apiOptions) {
      return callApi(
        {
          port,
          chainPem: running.portal.ca.chainPem,
          hostOf: (f) => (f === 'mtls' ? config.mtlsHost : host),
        },
        face,
        method,
        urlPath,
        apiOptions,
      );
    },
    curl(face, urlPath, extra = []) {
      return curlFace({ port, host, mtlsHost: config.mtlsHost, chainFile }, face, urlPath, extra);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await running.close();
    },
    async destroy() {
      if (!stopped) {
        stopped = true;
        await running.close();
      }
      await rm(workDir, { recursive: true, force: true });
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** curl arguments that present a member's .pfx as the client certificate. */
export function withKey(key: MemberKey): string[] {
  return ['--cert-type', 'P12', '--cert', `${key.pfxFile}:${key.password}`];
}
