import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { hashCode } from '../../src/modules/auth/codes.js';
import { insertEnrollment } from '../../src/modules/enrollment/repository.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { insertMember } from '../../src/modules/people/repository.js';
import { startPortal, type RunningPortal } from '../../src/server.js';
import { callApi, type ApiRequestOptions, type ApiResponse } from './api-client.js';
import { curlFace, freePort, type RunResult } from './processes.js';

export type Face = 'public' | 'mtls';

export interface TestPortal extends RunningPortal {
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
  /** An active member with a freshly issued certificate, packed as a legacy .pfx file. */
  addMember(callsign: string, options?: { roles?: 'admin'[] }): Promise<MemberKey>;
  /** Another key of an active member, issued as a download would (and counted alike). */
  issueKey(callsign: string): Promise<MemberKey>;
  /** Someone who enrolled with a new invite code and waits for approval; their enrollment JWT. */
  addPendingEnrollee(callsign: string, inviteCode: string): Promise<string>;
  /** Stops the server but keeps the data directory (to start again on it). */
  stop(): Promise<void>;
  /** Stops the server and removes everything it wrote. */
  destroy(): Promise<void>;
}

export interface MemberKey {
  callsign: string;
  serial: string;
  /** The member certificate alone, as PEM. */
  certificatePem: string;
  pfxFile: string;
  password: string;
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
  const running = await startPortal(config, { logger: false });
  const chainFile = path.join(workDir, 'chain.pem');
  await writeFile(chainFile, running.portal.ca.chainPem);
  const host = config.host;
  const origin = (face: Face) => `https://${face === 'mtls' ? config.mtlsHost : host}:${port}`;
  let stopped = false;

  const issueKey = async (callsign: string): Promise<MemberKey> => {
    const { certificates } = running.portal;
    const issued = await certificates.issueKeystore(
      {
        callsign,
        purpose: 'browser',
        actor: { callsign: 'test', clientAddress: null },
        audit: { action: 'test.issue-key' },
      },
      'legacy',
    );
    const pfx = issued.keystore;
    const pfxFile = path.join(workDir, `${callsign}-${issued.serial}.pfx`);
    await writeFile(pfxFile, pfx, { mode: 0o600 });
    return {
      callsign,
      serial: issued.serial,
      certificatePem: issued.certificatePem,
      pfxFile,
      password: callsign,
    };
  };

  return {
    ...running,
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
    async addMember(callsign, memberOptions = {}) {
      await insertMember(running.portal.database.db, {
        callsign,
        status: 'active',
        inviteCode: null,
        roles: memberOptions.roles ?? [],
        at: Date.now(),
      });
      return issueKey(callsign);
    },
    issueKey,
    async addPendingEnrollee(callsign, inviteCode) {
      const db = running.portal.database.db;
      const at = Date.now();
      await insertInviteCode(db, { code: inviteCode, createdAt: at, ownerCallsign: null });
      await insertMember(db, { callsign, status: 'pending', inviteCode, roles: [], at });
      await insertEnrollment(db, {
        callsign,
        inviteCode,
        approvalCodeHash: hashCode('ABCD2345'),
        createdAt: at,
      });
      const token = await running.portal.tokens.issue({
        scope: 'enrollment',
        subject: callsign,
        ttlMs: 60_000,
      });
      return token.jwt;
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
