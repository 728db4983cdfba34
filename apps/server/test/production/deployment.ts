import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { apiPaths } from '@callsign/contract';
import { CertificateAuthority } from '../../src/ca/authority.js';
import { TokenService } from '../../src/modules/auth/token-service.js';
import { testEngines, type ScratchDatabase } from '../../src/db/test-engines.testing.js';
import {
  curlFace,
  freePort,
  run,
  spawnNode,
  type CurlTarget,
  type RunResult,
} from '../support/processes.js';
import { REPO_ROOT, SERVER_DIST } from '../support/repo.js';

/**
 * The production shape with real parts (docs/deployment.md): nginx from Debian in
 * front of two built portal instances (PORTAL_TLS_MODE=proxy) on one PostgreSQL database, all
 * on loopback. nginx connects to the instances from 127.0.0.2, the only trusted proxy address,
 * so a test speaking straight to an instance from 127.0.0.1 is "any other address".
 */

export const HOST = 'portal.localhost';
export const MTLS_HOST = `mtls.${HOST}`;
/** TAK_HOST by default: the TAK enrollment face's name. */
export const TAK_HOST = `tak.${HOST}`;
export const PROXY_ADDRESS = '127.0.0.2';
/** The secret nginx sends beside a forwarded certificate (PORTAL_PROXY_SECRET_FILE). */
export const PROXY_SECRET = 'cHJvZHVjdGlvbi10aWVyIHByb3h5IHNlY3JldA==';
const NGINX_PROXY_SECRET_CONF = '/etc/nginx/callsign-portal-proxy-secret.conf';
export const NGINX_CONF = path.join(REPO_ROOT, 'deploy', 'nginx', 'portal.conf');
const MAIN = path.join(SERVER_DIST, 'main.js');
const CLI = path.join(SERVER_DIST, 'cli.js');

/**
 * The PostgreSQL engine of the test command, or undefined without one (the suite is skipped);
 * with PORTAL_REQUIRE_POSTGRES=1 and none, testEngines() throws and the suite fails.
 */
export function postgresEngine() {
  return testEngines().find((engine) => engine.name === 'postgres');
}

export interface PortalInstance {
  name: string;
  port: number;
  /** The TAK enrollment face's plain-HTTP port (nginx's 8446 server block forwards to it). */
  enrollPort: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

export interface Deployment {
  workDir: string;
  dataDir: string;
  database: ScratchDatabase;
  env: Record<string, string>;
  instances: PortalInstance[];
  nginx: Nginx;
  /** File with the portal's CA chain (curl's --cacert). */
  chainFile: string;
  /** The portal's CLI on the deployment's database and data directory. */
  cli(args: string[]): Promise<RunResult>;
  /** curl through nginx to a face, with the names resolved to 127.0.0.1. */
  curl(
    face: 'public' | 'mtls',
    urlPath: string,
    extra?: string[],
  ): Promise<RunResult & { status: number; body: string }>;
  destroy(): Promise<void>;
}

/** The built service, waited for until it listens. */
export async function startInstance(
  name: string,
  env: Record<string, string>,
): Promise<PortalInstance> {
  if (!existsSync(MAIN)) throw new Error(`build the server first (npm run build): no ${MAIN}`);
  const port = await freePort();
  const enrollPort = await freePort();
  const service = spawnNode(MAIN, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env,
      PORTAL_PORT: String(port),
      PORTAL_TAK_ENROLL_PORT: String(enrollPort),
    },
  });
  const { child, exited } = service;
  const output = () => service.output();
  const deadline = Date.now() + 60_000;
  while (!output().includes('Listening:')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`portal ${name} did not start:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    name,
    port,
    enrollPort,
    child,
    output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Nginx {
  /** nginx's TLS port (both faces). */
  port: number;
  /** nginx's TAK enrollment port (the 8446 server block, `tak.{host}`). */
  enrollPort: number;
  /** nginx's plain-HTTP port (the port-80 server block). */
  httpPort: number;
  dir: string;
  config: string;
  stop(): Promise<void>;
}

export interface NginxFiles {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/**
 * deploy/nginx/portal.conf as shipped, with only the site-specific parts replaced (names, ports,
 * files), inside a main configuration that keeps everything in `dir`.
 */
export async function nginxConfig(
  dir: string,
  options: NginxFiles & {
    port: number;
    httpPort: number;
    enrollPort: number;
    upstreams: number[];
    enrollUpstreams: number[];
  },
): Promise<string> {
  const shipped = await readFile(NGINX_CONF, 'utf8');
  const upstreams = options.upstreams
    .map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=5s;`)
    .join('\n');
  const enrollUpstreams = options.enrollUpstreams
    .map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=5s;`)
    .join('\n');
  const site = shipped
    .replace(/^ {4}server 127\.0\.0\.1:8080.*\n {4}server 127\.0\.0\.1:8081.*$/m, upstreams)
    .replace(/^ {4}server 127\.0\.0\.1:9446.*\n {4}server 127\.0\.0\.1:9447.*$/m, enrollUpstreams)
    .replace(/^\s*listen \[::\]:\d+.*\n/gm, '')
    .replaceAll('listen 443 ssl;', `listen 127.0.0.1:${options.port} ssl;`)
    .replaceAll('listen 80;', `listen 127.0.0.1:${options.httpPort};`)
    .replaceAll('listen 8446 ssl;', `listen 127.0.0.1:${options.enrollPort} ssl;`)
    .replaceAll('https://portal.example.org/', `https://${HOST}:${options.port}/`)
    .replaceAll('portal.example.org', HOST)
    .replaceAll('/etc/callsign-portal/tls/fullchain.pem', options.certFile)
    .replaceAll('/etc/callsign-portal/tls/privkey.pem', options.keyFile)
    .replaceAll('/etc/callsign-portal/tls/tak-fullchain.pem', options.certFile)
    .replaceAll('/etc/callsign-portal/tls/tak-privkey.pem', options.keyFile)
    .replaceAll('/etc/callsign-portal/portal-ca.pem', options.caFile)
    .replaceAll(NGINX_PROXY_SECRET_CONF, path.join(dir, 'proxy-secret.conf'));
  await writeFile(path.join(dir, 'portal.conf'), site);
  await writeFile(
    path.join(dir, 'proxy-secret.conf'),
    `proxy_set_header X-Portal-Proxy-Secret "${PROXY_SECRET}";\n`,
    { mode: 0o600 },
  );
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    await mkdir(path.join(dir, temp), { recursive: true });
  }
  const main = [
    // As root the workers would drop to nobody, who cannot use the private temp directory.
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    // Connect to the instances from the one address they trust as the proxy.
    `  proxy_bind ${PROXY_ADDRESS};`,
    `  client_body_temp_path ${dir}/body;`,
    `  proxy_temp_path ${dir}/proxy;`,
    `  fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi;`,
    `  scgi_temp_path ${dir}/scgi;`,
    `  include ${dir}/portal.conf;`,
    '}',
    '',
  ].join('\n');
  const file = path.join(dir, 'nginx.conf');
  await writeFile(file, main);
  return file;
}

/** `nginx -t` on a configuration: its exit status and what it said. */
export function testNginxConfig(dir: string, config: string): Promise<RunResult> {
  return run('nginx', ['-t', '-p', dir, '-c', config]);
}

export async function startNginx(
  dir: string,
  options: NginxFiles & { upstreams: number[]; enrollUpstreams: number[] },
): Promise<Nginx> {
  const port = await freePort();
  const httpPort = await freePort();
  const enrollPort = await freePort();
  const config = await nginxConfig(dir, { ...options, port, httpPort, enrollPort });
  const checked = await testNginxConfig(dir, config);
  if (checked.code !== 0) throw new Error(`nginx -t failed:\n${checked.stderr}`);
  const child = spawn('nginx', ['-p', dir, '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => {
      resolve();
    });
  });
  const deadline = Date.now() + 20_000;
  while (!existsSync(path.join(dir, 'nginx.pid'))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    httpPort,
    enrollPort,
    dir,
    config,
    async stop() {
      // QUIT: graceful stop of master and workers.
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}

/**
 * One data directory (CA, JWT key) shared by every instance, as on shared storage: made once
 * before the instances start, as an operator does with `portal migrate` on the first machine.
 */
async function prepareSharedData(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const caDir = path.join(dataDir, 'ca');
  await CertificateAuthority.loadOrCreate({ dir: caDir, publicBaseUrl: `https://${HOST}` });
  await TokenService.open(caDir);
}

export async function startDeployment(
  database: ScratchDatabase,
  extraEnv: Record<string, string> = {},
): Promise<Deployment> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-prod-'));
  const dataDir = path.join(workDir, 'data');
  await prepareSharedData(dataDir);
  const proxySecretFile = path.join(workDir, 'proxy-secret');
  await writeFile(proxySecretFile, `${PROXY_SECRET}\n`, { mode: 0o600 });
  const env: Record<string, string> = {
    PORTAL_HOST: HOST,
    PORTAL_TLS_MODE: 'proxy',
    PORTAL_TRUSTED_PROXIES: PROXY_ADDRESS,
    PORTAL_PROXY_SECRET_FILE: proxySecretFile,
    PORTAL_DATA_DIR: dataDir,
    DATABASE_URL: database.options.databaseUrl ?? '',
    PORTAL_WEB_DIR: path.join(workDir, 'web'),
    PORTAL_LOG_LEVEL: 'info',
    PORTAL_METRICS_ADDRESS: 'off',
    ...extraEnv,
  };
  const instances: PortalInstance[] = [];
  let nginx: Nginx | undefined;
  const cli = (args: string[]) =>
    run('node', [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
  try {
    // Both at once on the empty database: the migration lock lets one migrate, the other wait.
    instances.push(...(await Promise.all([startInstance('A', env), startInstance('B', env)])));
    const tlsDir = path.join(workDir, 'nginx-tls');
    await mkdir(tlsDir);
    const issued = await cli(['server-cert', HOST, MTLS_HOST, TAK_HOST, '--out', tlsDir]);
    if (issued.code !== 0) throw new Error(`server-cert failed:\n${issued.stderr}`);
    const caDir = path.join(dataDir, 'ca');
    const chain =
      (await readFile(path.join(caDir, 'issuing-ca.pem'), 'utf8')) +
      (await readFile(path.join(caDir, 'root-ca.pem'), 'utf8'));
    const chainFile = path.join(workDir, 'portal-ca.pem');
    await writeFile(chainFile, chain);
    const nginxDir = path.join(workDir, 'nginx');
    await mkdir(nginxDir);
    const started = await startNginx(nginxDir, {
      certFile: path.join(tlsDir, `${HOST}.crt.pem`),
      keyFile: path.join(tlsDir, `${HOST}.key.pem`),
      caFile: chainFile,
      upstreams: instances.map((instance) => instance.port),
      enrollUpstreams: instances.map((instance) => instance.enrollPort),
    });
    nginx = started;
    const target = { port: started.port, host: HOST, mtlsHost: MTLS_HOST, chainFile };
    await untilNginxAnswers(target, started);
    return {
      workDir,
      dataDir,
      database,
      env,
      instances,
      nginx: started,
      chainFile,
      cli,
      async curl(face, urlPath, extra = []) {
        let result = await curlFace(target, face, urlPath, extra);
        // Could not connect (7) or no TLS session (35): nothing reached nginx's HTTP layer, let
        // alone the portal, so asking again cannot repeat a request. Said on stderr when it helps.
        for (let retry = 0; retry < 2 && UNSENT_CURL_EXITS.has(result.code); retry++) {
          console.warn(
            `curl ${face} ${urlPath}: exit ${result.code}, asked again: ${result.stderr}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 200));
          result = await curlFace(target, face, urlPath, extra);
        }
        // No HTTP answer at all is never what a test asks about: say what curl and nginx saw.
        if (result.status === 0) {
          throw new Error(
            `curl got no answer from nginx for ${face} ${urlPath} (exit ${result.code}): ` +
              `${result.stderr}\n${await nginxErrors(started)}`,
          );
        }
        return result;
      },
      async destroy() {
        await started.stop();
        await Promise.all(instances.map((instance) => instance.stop()));
        await rm(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await nginx?.stop();
    for (const instance of instances) instance.child.kill('SIGKILL');
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

/** curl's exit codes for a request that never left the client: connection refused, TLS failed. */
const UNSENT_CURL_EXITS = new Set([7, 35]);

/** The tail of nginx's error log, for a failure message. */
async function nginxErrors(nginx: Nginx): Promise<string> {
  const log = await readFile(path.join(nginx.dir, 'error.log'), 'utf8').catch(() => '');
  return `nginx error.log:\n${log.split('\n').slice(-20).join('\n')}`;
}

/**
 * Waits until nginx answers the health check on both faces through to an instance: its pid file
 * says the master has started, not that a request gets through yet.
 */
async function untilNginxAnswers(target: CurlTarget, nginx: Nginx): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answers = await Promise.all(
      (['public', 'mtls'] as const).map((face) => curlFace(target, face, apiPaths.healthcheck)),
    );
    if (answers.every((answer) => answer.status === 200)) return;
    if (Date.now() > deadline) {
      const seen = answers.map((answer) => `${answer.status} ${answer.stderr}`).join('; ');
      throw new Error(
        `nginx did not answer the health check: ${seen}\n${await nginxErrors(nginx)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface DirectResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface DirectRequest {
  /** Which face the Host header names. */
  face: 'public' | 'mtls';
  /** Source address of the connection: 127.0.0.2 is the trusted proxy, 127.0.0.1 is not. */
  from: string;
  headers?: Record<string, string>;
  json?: unknown;
}

/** A plain-HTTP request straight to one instance, bypassing nginx. */
export function direct(
  instance: PortalInstance,
  method: string,
  urlPath: string,
  request: DirectRequest,
): Promise<DirectResponse> {
  const body = request.json === undefined ? undefined : JSON.stringify(request.json);
  const headers: Record<string, string> = {
    host: request.face === 'mtls' ? MTLS_HOST : HOST,
    ...request.headers,
    ...(body === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
  };
  // As the web app sends every call that changes state: a JSON content type, body or not.
  if (method !== 'GET' && method !== 'HEAD') headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port: instance.port,
        localAddress: request.from,
        method,
        path: urlPath,
        headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * The headers nginx sets on the mTLS face for a certificate it verified, with its secret
 * (`secret` null: without one, as a forger who does not know it).
 */
export function forwardedCertificate(
  certificatePem: string,
  verify = 'SUCCESS',
  secret: string | null = PROXY_SECRET,
) {
  return {
    'x-ssl-client-cert': encodeURIComponent(certificatePem),
    'x-ssl-client-verify': verify,
    ...(secret === null ? {} : { 'x-portal-proxy-secret': secret }),
  };
}
