import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PortalMetrics } from '../src/metrics/portal-metrics.js';
import { run } from './support/processes.js';
import { REPO_ROOT } from './support/repo.js';

/**
 * The monitoring files an operator installs (deploy/prometheus, deploy/grafana): they name only
 * series the portal serves, and the alert rules pass Prometheus's own checks and unit tests.
 */

const PROMETHEUS = path.join(REPO_ROOT, 'deploy', 'prometheus');
const DASHBOARD = path.join(REPO_ROOT, 'deploy', 'grafana', 'callsign-portal.json');

/** Every series family a portal serves (PostgreSQL's included), as `# TYPE` lines name them. */
async function servedFamilies(): Promise<Map<string, string>> {
  const metrics = new PortalMetrics({ version: 'test' });
  metrics.watch({
    enrollmentsByState: () => Promise.resolve({}),
    currentCrl: () =>
      Promise.resolve({ crlNumber: 1n, thisUpdate: new Date(), nextUpdate: new Date() }),
    caCertificates: [{ ca: 'root', notAfter: new Date() }],
    pool: () => ({ inUse: 0, waiting: 0 }),
    revocationFetches: () => Promise.resolve({}),
  });
  metrics.collectProcessMetrics();
  const text = await metrics.text();
  return new Map(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
  );
}

/** The series a file's queries name: ours and Node's. */
function namedSeries(text: string): Set<string> {
  return new Set(text.match(/\b(callsign_portal_|process_|nodejs_)[a-z0-9_]+/g) ?? []);
}

function isServed(name: string, families: Map<string, string>): boolean {
  if (families.has(name)) return true;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.get(base) === 'histogram';
}

describe('deploy/prometheus and deploy/grafana', () => {
  it('name only series the portal serves', async () => {
    const families = await servedFamilies();
    const alerts = await readFile(path.join(PROMETHEUS, 'alerts.yml'), 'utf8');
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      panels: { id: number; type: string; targets?: { expr: string }[] }[];
    };
    const expressions = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => target.expr),
    );
    for (const [file, text] of [
      ['alerts.yml', alerts],
      ['callsign-portal.json', expressions.join('\n')],
    ] as const) {
      const named = [...namedSeries(text)];
      expect(named.length, file).toBeGreaterThan(5);
      expect(
        named.filter((name) => !isServed(name, families)),
        file,
      ).toEqual([]);
    }
    // Every family of ours is on the dashboard.
    const onDashboard = namedSeries(expressions.join('\n'));
    const ours = [...families.keys()].filter((name) => name.startsWith('callsign_portal_'));
    expect(
      ours.filter(
        (name) => ![...onDashboard].some((used) => used === name || used === `${name}_bucket`),
      ),
    ).toEqual([]);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
  });

  it('alert rules pass promtool check rules and their unit tests', async (context) => {
    if ((await run('sh', ['-c', 'command -v promtool'])).code !== 0) {
      context.skip('promtool is not installed (Debian: apt-get install prometheus)');
    }
    const check = await run('promtool', ['check', 'rules', 'alerts.yml'], { cwd: PROMETHEUS });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/SUCCESS: 16 rules found/);
    const tests = await run('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: PROMETHEUS });
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
  });
});
