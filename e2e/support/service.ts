import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { freePort } from '../../apps/server/test/support/processes.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../apps/server/dist/main.js', import.meta.url));

/** Where a running portal answers, and its files (what a test needs of it). */
export interface Portal {
  port: number;
  /** The TAK enrollment face's port (`https://tak.portal.localhost:{port}`). */
  takEnrollPort: number;
  origin: string;
  mtlsOrigin: string;
  /** The first-start login link with the admin code. */
  adminLink: string;
  dataDir: string;
  rootCaFile: string;
}

/** The built portal as `npm start` runs it, on a free port with its own data directory. */
export interface Service extends Portal {
  output(): string;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-'));
  const dataDir = path.join(workDir, 'data');
  const port = await freePort();
  const takEnrollPort = await freePort();
  const child: ChildProcess = spawn('node', [MAIN], {
    cwd: workDir,
    env: {
      ...process.env,
      PORTAL_PORT: String(port),
      PORTAL_TAK_ENROLL_PORT: String(takEnrollPort),
      PORTAL_DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORTAL_LOG_LEVEL: 'warn',
      PORTAL_METRICS_ADDRESS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => {
      resolve();
    });
  });
  const linkPattern = new RegExp(`https://portal\\.localhost:${port}/login\\?code=[A-Z0-9]{12}`);
  const deadline = Date.now() + 60_000;
  let adminLink: string | undefined;
  while (adminLink === undefined) {
    adminLink = linkPattern.exec(output)?.[0];
    if (adminLink !== undefined) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the portal did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    takEnrollPort,
    origin: `https://portal.localhost:${port}`,
    mtlsOrigin: `https://mtls.portal.localhost:${port}`,
    adminLink,
    dataDir,
    rootCaFile: path.join(dataDir, 'ca', 'root-ca.pem'),
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
