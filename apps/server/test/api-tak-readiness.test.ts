import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { apiPaths, takReadinessResponseSchema } from '@callsign/contract';
import { selfSignedCertificate } from '../src/ca/openssl-cli.testing.js';
import { run } from './support/processes.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

/** GET admin/tak-readiness: what the portal can see of the TAK side, for the admin home. */
describe('TAK readiness', () => {
  let portal: TestPortal | undefined;

  afterEach(async () => {
    await portal?.destroy();
    portal = undefined;
  });

  async function readiness(started: TestPortal) {
    const admin = await started.addMember('Ready1', { roles: ['admin'] });
    const answer = await started.api('mtls', 'GET', apiPaths.takReadiness, { key: admin });
    expect(answer.status, answer.text).toBe(200);
    return takReadinessResponseSchema.parse(answer.json());
  }

  it('shows the TAK server, the portal CA as truststore and the CRL a TAK Server loads', async () => {
    portal = await startTestPortal({ env: { TAK_HOST: 'tak.example.org', TAK_PORT: '8090' } });
    const facts = await readiness(portal);

    expect(facts.tak).toEqual({ host: 'tak.example.org', port: 8090 });
    // The enrollment face's certificate is the portal CA's: phones need the trust package, and
    // the test's port is not ATAK's 8446.
    expect(facts.enrollment).toEqual({
      host: 'tak.example.org',
      port: portal.takEnroll?.port,
      trusted_by_phones: false,
      trust_basis: 'unknown-root',
      root: null,
      chain_end: 'Callsign Portal Root CA',
      warnings: ['port-not-8446', 'phones-need-trust-package'],
    });
    expect(facts.check_command).toBe(
      'npm run --silent portal -- tak-check --host tak.example.org --port 8090',
    );
    expect(facts.truststore).toMatchObject({ source: 'portal-ca', file: null, error: null });
    expect(facts.truststore.certificates.map((certificate) => certificate.subject)).toEqual([
      expect.stringMatching(/Issuing CA/),
      expect.stringMatching(/Root CA/),
    ]);
    for (const certificate of facts.truststore.certificates) {
      expect(certificate.expired).toBe(false);
      expect(Date.parse(certificate.not_after)).toBeGreaterThan(Date.now());
    }

    // The same CRL as /ca/crl.pem, as OpenSSL reads it.
    expect(facts.crl.url).toBe(`http://portal.localhost:${portal.port}/ca/crl.pem`);
    const crlFile = path.join(portal.workDir, 'crl.pem');
    const crl = await portal.curl('public', '/ca/crl.pem', ['--output', crlFile]);
    expect(crl.status).toBe(200);
    const dates = await run('openssl', [
      'crl',
      '-in',
      crlFile,
      '-noout',
      '-lastupdate',
      '-nextupdate',
      '-crlnumber',
    ]);
    const field = (name: string) => new RegExp(`${name}=(.+)`).exec(dates.stdout)?.[1] ?? '';
    expect(dates.stdout).toContain('lastUpdate=');
    expect(Date.parse(field('lastUpdate'))).toBe(Date.parse(facts.crl.this_update));
    expect(Date.parse(field('nextUpdate'))).toBe(Date.parse(facts.crl.next_update));
    expect(BigInt(field('crlNumber')).toString()).toBe(facts.crl.number);
    expect(Date.parse(facts.crl.next_update) - Date.parse(facts.crl.this_update)).toBe(
      14 * 24 * 3_600_000,
    );
    expect(facts.crl.age_seconds).toBeGreaterThanOrEqual(0);
    expect(facts.crl.age_seconds).toBeLessThan(60);
  });

  it('checks an operator’s enrollment certificate against the roots phones trust', async () => {
    // A test chain cannot be signed by a real root: this one's own root is unknown to phones
    // (tak/phone-trust.test.ts shows the same chain trusted once its root is in the list).
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tak-enroll-cert-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = (name: string) => path.join(dir, name);
    await selfSignedCertificate(dir, 'root', { subject: '/CN=Example Public Root', days: 30 });
    for (const host of ['tak.example.org', 'other.example.org']) {
      await selfSignedCertificate(dir, host, { signedBy: 'root', dnsName: host, days: 30 });
    }
    const facts = async (host: string) => {
      portal = await startTestPortal({
        env: {
          TAK_HOST: 'tak.example.org',
          PORTAL_TAK_ENROLL_TLS_CERT: file(`${host}.pem`),
          PORTAL_TAK_ENROLL_TLS_KEY: file(`${host}.key`),
        },
      });
      const answer = await readiness(portal);
      await portal.destroy();
      portal = undefined;
      return answer.enrollment;
    };
    expect(await facts('tak.example.org')).toMatchObject({
      trusted_by_phones: false,
      trust_basis: 'unknown-root',
      chain_end: 'Example Public Root',
    });
    expect(await facts('other.example.org')).toMatchObject({
      trusted_by_phones: false,
      trust_basis: 'wrong-host',
      chain_end: null,
    });
  });

  it('names the truststore file and its certificates, and says so when the file is gone', async () => {
    const started = await startTestPortal();
    portal = started;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tak-truststore-'));
    const file = path.join(dir, 'tak-ca.pem');
    await writeFile(file, started.portal.ca.rootCertificatePem);
    await started.destroy();

    portal = await startTestPortal({ env: { PORTAL_TAK_TRUSTSTORE_PEM: file } });
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const facts = await readiness(portal);
    expect(facts.truststore).toMatchObject({ source: 'file', file, error: null });
    expect(facts.truststore.certificates).toHaveLength(1);
    expect(facts.truststore.certificates[0]?.subject).toMatch(/Root CA/);

    await rm(file);
    const gone = await readiness(portal);
    expect(gone.truststore).toMatchObject({ source: 'file', file, certificates: [] });
    expect(gone.truststore.error).toMatch(/ENOENT/);
  });
});
