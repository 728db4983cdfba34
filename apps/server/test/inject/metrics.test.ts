import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  caPaths,
  createInviteResponseSchema,
  enrollResponseSchema,
  type EnrollResponse,
} from '@callsign/contract';
import { ocspQuestion } from '../../src/ca/ocsp-check.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { scrapeProbes } from '../../src/server.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { Scrape } from '../support/prometheus-text.js';

/**
 * The portal's Prometheus series (docs/operations.md), read with a Prometheus text parser as the
 * metrics listener serves them: they move as a known sequence of calls says. The listener itself
 * (its own port, plain HTTP, apart from both faces) is tested in ../metrics-listener.test.ts.
 */

const BUDGET = 3;
const ADMIN = 'Gauge1';
const ENROLLEE = 'Metric7';
const INVITE_ROUTE = apiPaths.checkAdminCode;

describe.each(testEngines())('metrics on $name', (engine) => {
  let portal: InjectPortal;
  let adminKey: MemberKey;

  /** What the metrics listener would answer a scrape now. */
  const scrape = async (): Promise<Scrape> => {
    const { metrics } = portal.portal;
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    return Scrape.parse(await metrics.text());
  };

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({
      env: {
        ...env,
        PORTAL_RATE_LIMIT_FAILURES: String(BUDGET),
        PORTAL_KEYS_PER_HOUR: '1',
        // The OCSP requests here come from the inject's address: a TAK Server's (presence).
        PORTAL_TAK_SERVER_ADDRESSES: '127.0.0.1',
      },
    });
    // As the service does when it starts the metrics listener.
    portal.portal.metrics.watch(scrapeProbes(portal.portal));
    return portal;
  });
  beforeAll(async () => {
    adminKey = await portal.addMember(ADMIN, { roles: ['admin'] });
  });

  it('moves with a failed code check, an enrollment, an approval, a key download and a revocation', async () => {
    const before = await scrape();
    const requests = (scrape: Scrape, route: string, status: string, method = 'GET') =>
      scrape.value('callsign_portal_http_requests_total', { method, route, status });
    const latencyCount = (scrape: Scrape, route: string) =>
      scrape
        .family('callsign_portal_http_request_duration_seconds')
        .samples.find((sample) => sample.labels.route === route)?.value ?? 0;

    // A login code check that fails: a 200 answering false, and one spent guess.
    const check = await portal.api(
      'public',
      'GET',
      `${apiPaths.checkAdminCode}?temp_admin_code=WRONGCODE234`,
    );
    expect(check.json()).toEqual({ code_ok: false });

    // An enrollment with an invite code the admin makes, then its approval.
    const created = await portal.api('mtls', 'POST', apiPaths.createInvite, { key: adminKey });
    const invite = createInviteResponseSchema.parse(created.json()).invite_code;
    const enrolledAnswer = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: ENROLLEE, invite_code: invite },
    });
    expect(enrolledAnswer.status).toBe(200);
    const enrolled: EnrollResponse = enrollResponseSchema.parse(enrolledAnswer.json());
    const pending = await scrape();
    expect(pending.value('callsign_portal_enrollments', { state: 'pending' })).toBe(1);
    expect(pending.value('callsign_portal_enrollments', { state: 'approved' })).toBe(0);

    const accepted = await portal.api('mtls', 'POST', apiPaths.accept, {
      key: adminKey,
      json: { callsign: ENROLLEE, approvecode: enrolled.approvecode },
    });
    expect(accepted.status).toBe(200);

    // A key download with the enrollment token, which works once the enrollment is approved.
    const download = await portal.api('public', 'GET', apiPaths.keyDownload(ENROLLEE), {
      bearer: enrolled.jwt,
    });
    expect(download.status).toBe(200);
    const downloaded = await scrape();
    // A second key within the hour is refused by the minting limit (PORTAL_KEYS_PER_HOUR=1).
    const again = await portal.api('public', 'GET', apiPaths.keyDownload(ENROLLEE), {
      bearer: enrolled.jwt,
    });
    expect(again.status).toBe(429);

    // The revocation of the member, by the admin with their key.
    const revoked = await portal.api('mtls', 'DELETE', apiPaths.person(ENROLLEE), {
      key: adminKey,
    });
    expect(revoked.status).toBe(200);
    const after = await scrape();

    expect(requests(after, INVITE_ROUTE, '200') - requests(before, INVITE_ROUTE, '200')).toBe(1);
    expect(requests(after, apiPaths.enroll, '200', 'POST')).toBe(1);
    expect(requests(after, apiPaths.accept, '200', 'POST')).toBe(1);
    expect(requests(after, '/api/v1/enduserpfx/:callsign', '200')).toBe(1);
    expect(requests(after, '/api/v1/people/:callsign', '200', 'DELETE')).toBe(1);
    expect(latencyCount(after, '/api/v1/enduserpfx/:callsign')).toBe(1);

    expect(after.value('callsign_portal_enrollments', { state: 'pending' })).toBe(0);
    expect(after.value('callsign_portal_enrollments', { state: 'approved' })).toBe(1);
    const issued = (scrape: Scrape) =>
      scrape.value('callsign_portal_certificates_issued_total', { purpose: 'browser' });
    expect(issued(downloaded) - issued(before)).toBe(1);
    expect(after.value('callsign_portal_certificates_revoked_total', { purpose: 'browser' })).toBe(
      1,
    );
    expect(after.value('callsign_portal_key_generations_in_flight')).toBe(0);
    expect(
      after.value('callsign_portal_key_generation_refusals_total', { reason: 'keys-per-hour' }),
    ).toBe(1);
    expect(issued(after)).toBe(issued(downloaded));
    // A mint refusal is no failure-budget refusal.
    expect(
      after.value('callsign_portal_failure_budget_refusals_total', {
        route: '/api/v1/enduserpfx/:callsign',
      }),
    ).toBe(0);

    // The revocation re-signed the CRL: a new number, moments old, valid for 14 days.
    expect(after.value('callsign_portal_crl_number')).toBeGreaterThan(
      before.value('callsign_portal_crl_number'),
    );
    expect(after.value('callsign_portal_crl_age_seconds')).toBeLessThan(60);
    expect(after.value('callsign_portal_crl_validity_seconds')).toBe(14 * 24 * 3600);
    expect(
      after.value('callsign_portal_ca_certificate_expiry_timestamp_seconds', { ca: 'root' }),
    ).toBeGreaterThan(Date.now() / 1000);

    // None of the portal's own series is ever NaN.
    expect(after.notANumber.filter((line) => line.startsWith('callsign_portal_'))).toEqual([]);

    // No callsign, code or raw URL in any label.
    const labels = after.labelValues().join('\n');
    for (const secret of [ENROLLEE, ADMIN, invite, enrolled.approvecode, 'WRONGCODE234']) {
      expect(labels).not.toContain(secret);
    }
  });

  it('counts the refusals of a spent failure budget', async () => {
    const refusals = (scrape: Scrape) =>
      scrape.value('callsign_portal_failure_budget_refusals_total', { route: INVITE_ROUTE });
    const before = await scrape();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < BUDGET + 1; attempt += 1) {
      const answer = await portal.api(
        'public',
        'GET',
        `${apiPaths.checkAdminCode}?temp_admin_code=WRONGCODE${attempt}`,
      );
      statuses.push(answer.status);
    }
    expect(statuses).toContain(429);
    const after = await scrape();
    const refused = statuses.filter((status) => status === 429).length;
    expect(refusals(after) - refusals(before)).toBe(refused);
    expect(
      after.value('callsign_portal_http_requests_total', {
        method: 'GET',
        route: INVITE_ROUTE,
        status: '429',
      }),
    ).toBe(refused);
  });

  it('reports the age of the last OCSP check and CRL fetch, endless until a TAK Server asks', async () => {
    const before = await scrape();
    expect(before.value('callsign_portal_tak_ocsp_check_age_seconds')).toBe(Infinity);
    expect(before.value('callsign_portal_tak_crl_fetch_age_seconds')).toBe(Infinity);

    const question = ocspQuestion(portal.portal.ca.issuingCertificatePem, adminKey.serial);
    const asked = await portal.api('public', 'POST', caPaths.ocsp, {
      raw: question.der,
      contentType: 'application/ocsp-request',
    });
    expect(asked.status).toBe(200);
    await portal.portal.services.presence.flush();

    const after = await scrape();
    expect(after.value('callsign_portal_tak_ocsp_check_age_seconds')).toBeLessThan(60);
    expect(after.value('callsign_portal_tak_crl_fetch_age_seconds')).toBe(Infinity);
  });

  it('counts the OCSP answers signed: one for a new status, none for the cached answers after it', async () => {
    const signatures = (page: Scrape) => page.value('callsign_portal_ocsp_signatures_total');
    const before = await scrape();
    expect(before.family('callsign_portal_ocsp_signatures_total').type).toBe('counter');
    // A key the responder has not answered for yet: its first answer is signed.
    const member = await portal.addMember('Signed9');
    const ask = async () => {
      const question = ocspQuestion(portal.portal.ca.issuingCertificatePem, member.serial);
      const asked = await portal.api('public', 'POST', caPaths.ocsp, {
        raw: question.der,
        contentType: 'application/ocsp-request',
      });
      expect(asked.status).toBe(200);
    };
    await ask();
    const first = await scrape();
    expect(signatures(first) - signatures(before)).toBe(1);
    for (let i = 0; i < 20; i += 1) await ask();
    expect(signatures(await scrape())).toBe(signatures(first));
  });

  it(`reports the database pool ${engine.name === 'postgres' ? 'in use' : 'only on PostgreSQL'}`, async () => {
    if (engine.name !== 'postgres') {
      const page = await scrape();
      expect(page.families.has('callsign_portal_db_pool_connections_in_use')).toBe(false);
      return;
    }
    // A transaction holds a connection while Prometheus scrapes.
    const page = await portal.portal.database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      return scrape();
    });
    expect(page.family('callsign_portal_db_pool_connections_in_use').type).toBe('gauge');
    expect(page.value('callsign_portal_db_pool_connections_in_use')).toBeGreaterThanOrEqual(1);
    expect(page.value('callsign_portal_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
  });
});
