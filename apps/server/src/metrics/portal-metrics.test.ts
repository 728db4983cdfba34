import { describe, expect, it } from 'vitest';
import { PortalMetrics, type CrlFacts, type ScrapeProbes } from './portal-metrics.js';
import { routeLabel } from './request-metrics.js';

const HOUR = 3_600_000;

function probes(crl: () => Promise<CrlFacts>): ScrapeProbes {
  return {
    enrollmentsByState: () => Promise.resolve({ 0: 2, 2: 1 }),
    currentCrl: crl,
    caCertificates: [{ ca: 'root', notAfter: new Date('2046-01-01T00:00:00Z') }],
  };
}

async function sample(metrics: PortalMetrics, name: string, labels: Record<string, string> = {}) {
  const found = (await metrics.registry.getSingleMetric(name)?.get())?.values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return found?.value;
}

describe('PortalMetrics', () => {
  it('keeps the last CRL when signing fails, so that its age goes on growing', async () => {
    const metrics = new PortalMetrics({ version: '1.2.3' });
    const signed = new Date(Date.now() - 2 * HOUR);
    let fail = false;
    metrics.watch(
      probes(() =>
        fail
          ? Promise.reject(new Error('CA key unreadable'))
          : Promise.resolve({
              crlNumber: BigInt(signed.getTime()),
              thisUpdate: signed,
              nextUpdate: new Date(signed.getTime() + 14 * 24 * HOUR),
            }),
      ),
    );
    await metrics.text();
    fail = true;
    const text = await metrics.text();
    expect(text).toContain(`callsign_portal_crl_number ${signed.getTime()}`);
    expect(await sample(metrics, 'callsign_portal_crl_age_seconds')).toBeGreaterThanOrEqual(7200);
    expect(await sample(metrics, 'callsign_portal_enrollments', { state: 'pending' })).toBe(2);
    expect(await sample(metrics, 'callsign_portal_enrollments', { state: 'approved' })).toBe(0);
    expect(await sample(metrics, 'callsign_portal_enrollments', { state: 'rejected' })).toBe(1);
  });

  it('reports an endless CRL age until a CRL could be signed, and still answers the scrape', async () => {
    const metrics = new PortalMetrics({ version: '1.2.3' });
    metrics.watch(probes(() => Promise.reject(new Error('no CA'))));
    const text = await metrics.text();
    expect(text).toMatch(/^callsign_portal_crl_age_seconds \+Inf$/m);
    expect(text).toMatch(/^callsign_portal_crl_next_update_timestamp_seconds 0$/m);
    expect(text).toMatch(/^callsign_portal_ca_certificate_expiry_timestamp_seconds\{ca="root"\} /m);
  });

  it('reports the age of the last OCSP check and CRL fetch, +Inf for never or an unreadable database', async () => {
    const metrics = new PortalMetrics({ version: '1.2.3' });
    let fetches: () => Promise<{ ocsp?: number; crl?: number }> = () =>
      Promise.resolve({ ocsp: Date.now() - 120_000 });
    metrics.watch({
      ...probes(() => Promise.reject(new Error('no CA'))),
      revocationFetches: () => fetches(),
    });
    const ocspAge = await sample(metrics, 'callsign_portal_tak_ocsp_check_age_seconds');
    expect(ocspAge).toBeGreaterThanOrEqual(120);
    expect(ocspAge).toBeLessThan(130);
    expect(await sample(metrics, 'callsign_portal_tak_crl_fetch_age_seconds')).toBe(
      Number.POSITIVE_INFINITY,
    );
    fetches = () => Promise.reject(new Error('database gone'));
    expect(await sample(metrics, 'callsign_portal_tak_ocsp_check_age_seconds')).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it('counts by purpose from zero, key generations in flight, refusals and odd methods', async () => {
    const metrics = new PortalMetrics({ version: '1.2.3' });
    const text = await metrics.text();
    for (const purpose of ['browser', 'tak-package', 'tak-enroll', 'server']) {
      expect(text).toContain(`callsign_portal_certificates_issued_total{purpose="${purpose}"} 0`);
      expect(text).toContain(`callsign_portal_certificates_revoked_total{purpose="${purpose}"} 0`);
    }
    metrics.certificateIssued('tak-package');
    metrics.certificatesRevoked('browser', 3);
    metrics.certificatesRevoked('server', 0);
    metrics.mintStarted();
    metrics.mintStarted();
    metrics.mintEnded();
    metrics.mintRefused('keys-per-hour');
    metrics.requestFinished({ method: 'PROPFIND', route: '(unmatched)', status: 404, seconds: 0 });
    expect(
      await sample(metrics, 'callsign_portal_certificates_issued_total', {
        purpose: 'tak-package',
      }),
    ).toBe(1);
    expect(
      await sample(metrics, 'callsign_portal_certificates_revoked_total', { purpose: 'browser' }),
    ).toBe(3);
    expect(await sample(metrics, 'callsign_portal_key_generations_in_flight')).toBe(1);
    expect(
      await sample(metrics, 'callsign_portal_key_generation_refusals_total', {
        reason: 'keys-per-hour',
      }),
    ).toBe(1);
    expect(await sample(metrics, 'callsign_portal_http_requests_total', { method: 'other' })).toBe(
      1,
    );
  });

  it('labels requests by pattern, and the web app in three groups', () => {
    expect(routeLabel('/api/v1/people/:callsign', 200)).toBe('/api/v1/people/:callsign');
    expect(routeLabel('/ca/crl.pem', 200)).toBe('/ca/crl.pem');
    expect(routeLabel('/locales/:lng/dynamic.json', 404)).toBe('/locales/:lng/dynamic.json');
    expect(routeLabel('/assets/index-3f9a1c.js', 200)).toBe('(file)');
    expect(routeLabel(undefined, 200)).toBe('(page)');
    expect(routeLabel(undefined, 404)).toBe('(unmatched)');
  });
});
