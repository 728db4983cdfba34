import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, spawnNode, type ServiceProcess } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';

// The built service started as `npm start` starts it: its banner, its logs and its shutdown.
const MAIN = path.join(SERVER_DIST, 'main.js');

let workDir: string;
let port: number;
let enrollPort: number;

function startService(): ServiceProcess {
  return spawnNode(MAIN, {
    cwd: workDir,
    env: {
      ...process.env,
      PORTAL_PORT: String(port),
      PORTAL_TAK_ENROLL_PORT: String(enrollPort),
      PORTAL_DATA_DIR: 'data',
      DATABASE_URL: '',
      PORTAL_METRICS_ADDRESS: 'off',
    },
  });
}

async function waitFor(
  service: ServiceProcess,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(service.output());
    if (match) return match;
    if (service.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`did not see ${pattern} in:\n${service.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function curl(urlPath: string) {
  return run('curl', [
    '--silent',
    '--cacert',
    path.join(workDir, 'data', 'ca', 'root-ca.pem'),
    '--resolve',
    `portal.localhost:${port}:127.0.0.1`,
    '--write-out',
    '\n%{http_code}',
    `https://portal.localhost:${port}${urlPath}`,
  ]);
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build the server first (npm run build)').toBe(true);
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-process-'));
  port = await freePort();
  enrollPort = await freePort();
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the service process', () => {
  it('creates everything at first start, prints the admin login link, and stops on SIGTERM', async () => {
    const service = startService();
    try {
      const [, code] = await waitFor(
        service,
        new RegExp(`https://portal\\.localhost:${port}/login\\?code=([A-Z0-9]{12})\\n`),
      );
      expect(service.output()).toContain(`mTLS face:   https://mtls.portal.localhost:${port}/`);
      // Its own CA signed the enrollment face's certificate: phones need the trust package.
      expect(service.output()).toContain(
        '  TAK trust:   phones need the trust package first: its certificate chains to Callsign Portal Root CA, not to a root ATAK trusts\n',
      );
      expect(service.output()).toMatch(
        /"level":40,[^\n]*"trusted_by_phones":false,"basis":"unknown-root"[^\n]*"msg":"TAK enrollment: phones need the trust package first/,
      );
      expect((await stat(path.join(workDir, 'data', 'ca'))).mode & 0o777).toBe(0o700);
      for (const key of ['root-ca-key.pem', 'issuing-ca-key.pem', 'jwt-es256-key.pem']) {
        expect((await stat(path.join(workDir, 'data', 'ca', key))).mode & 0o777, key).toBe(0o600);
      }
      expect(existsSync(path.join(workDir, 'data', 'portal.sqlite'))).toBe(true);

      const health = await curl('/api/v1/healthcheck');
      expect(health.stdout).toMatch(/"healthcheck":"success"[\s\S]*\n200$/);
      // The code travels in a query string: the request log must not carry it.
      await curl(`/api/v1/firstuser/check-code?temp_admin_code=${code}`);
      await waitFor(service, /temp_admin_code=\[redacted\]/);
      const logLines = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) {
        expect(line).not.toContain(code);
        expect(() => JSON.parse(line) as unknown).not.toThrow();
      }

      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      service.child.kill('SIGKILL');
    }
  });

  it('starts again on the same data with the same CA, and a new code while no admin exists', async () => {
    const chainBefore = (await run('cat', [path.join(workDir, 'data', 'ca', 'issuing-ca.pem')]))
      .stdout;
    const service = startService();
    try {
      await waitFor(service, /login\?code=[A-Z0-9]{12}\n/);
      const chain = await curl('/ca/ca.pem');
      expect(chain.stdout).toContain(chainBefore.trim());
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
