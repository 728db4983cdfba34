import { beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../src/db/test-engines.testing.js';
import { portalOnScratchDatabase } from './support/portal-on-engine.js';
import { freePort } from './support/processes.js';
import { Scrape } from './support/prometheus-text.js';
import { startTestPortal, type MemberKey, type TestPortal } from './support/test-portal.js';

/**
 * The Prometheus listener (docs/operations.md): its own address, in plain HTTP, apart from both
 * faces, scraped over HTTP and read with a Prometheus text parser. How its series move is tested
 * in-process, in inject/metrics.test.ts.
 */

const ADMIN = 'Gauge1';

describe.each(testEngines())('the metrics listener on $name', (engine) => {
  let portal: TestPortal;
  let metricsPort: number;
  let adminKey: MemberKey;

  const scrape = async (): Promise<Scrape> => {
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return Scrape.parse(await response.text());
  };

  portalOnScratchDatabase(engine, async (env) => {
    metricsPort = await freePort();
    portal = await startTestPortal({
      env: { ...env, PORTAL_METRICS_ADDRESS: `127.0.0.1:${metricsPort}` },
    });
    return portal;
  });
  beforeAll(async () => {
    adminKey = await portal.addMember(ADMIN, { roles: ['admin'] });
  });

  it('is served on its own listener and nowhere on the two faces', async () => {
    expect(portal.metrics?.port).toBe(metricsPort);
    const page = await scrape();
    expect(page.family('callsign_portal_http_requests_total').type).toBe('counter');
    expect(page.family('callsign_portal_http_request_duration_seconds').type).toBe('histogram');
    // Node's own process metrics come along.
    expect(page.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(page.family('nodejs_eventloop_lag_seconds').type).toBe('gauge');
    expect(page.value('callsign_portal_build_info', { version: '0.0.0-test' })).toBe(1);

    for (const face of ['public', 'mtls'] as const) {
      const answer = await portal.api(face, 'GET', '/metrics', { key: adminKey });
      expect(answer.text, face).not.toContain('callsign_portal_');
      expect(answer.text, face).not.toContain('# TYPE');
    }
    const elsewhere = await fetch(`http://127.0.0.1:${metricsPort}/api/v1/healthcheck`);
    expect(elsewhere.status).toBe(404);
    const posted = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' });
    expect(posted.status).toBe(405);
  });
});
