import { X509Crl } from '@peculiar/x509';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { type CertificateAuthority } from '../../ca/authority.js';
import { loadTestCa } from '../../ca/test-ca.testing.js';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { recordIssuedCertificate, revokeCertificate } from './repository.js';
import { Membership } from '../people/membership.js';
import { CertificateService, crlResignIntervalMs } from './service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = 1_767_225_600_000;

/** The CRL's thisUpdate and nextUpdate, as a relying party reads them. */
function datesOf(pem: string) {
  const crl = new X509Crl(pem);
  return { thisUpdate: crl.thisUpdate.getTime(), nextUpdate: crl.nextUpdate?.getTime() };
}

describeWithMigratedDatabase('the CRL schedule (docs/api.md)', (database) => {
  let ca: CertificateAuthority;
  beforeAll(async () => {
    ca = await loadTestCa({
      dir: path.join(database.scratch.dataDir, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
    });
  });

  /** A service on a clock the test moves. */
  function serviceAt(crlValidityDays: number) {
    const clock = { now: T };
    const service = new CertificateService(
      database.handle.db,
      ca,
      { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays },
      { members: new Membership(database.handle.db), now: () => new Date(clock.now) },
    );
    return { service, clock };
  }

  it('re-signs a day at most, or at half a shorter validity', () => {
    expect(crlResignIntervalMs(14)).toBe(DAY);
    expect(crlResignIntervalMs(2)).toBe(DAY);
    expect(crlResignIntervalMs(1)).toBe(12 * HOUR);
  });

  it('signs nextUpdate the validity ahead and re-signs after a day even when nothing was revoked', async () => {
    const { service, clock } = serviceAt(14);
    const first = datesOf((await service.currentCrl()).pem);
    expect(first).toEqual({ thisUpdate: T, nextUpdate: T + 14 * DAY });

    clock.now = T + DAY - 1000;
    expect((await service.currentCrl()).pem).toBe((await service.currentCrl()).pem);
    expect(datesOf((await service.currentCrl()).pem).thisUpdate).toBe(T);

    // Idle for a week: the next request gets a CRL signed now, not the week-old one.
    clock.now = T + 7 * DAY;
    expect(datesOf((await service.currentCrl()).pem)).toEqual({
      thisUpdate: T + 7 * DAY,
      nextUpdate: T + 21 * DAY,
    });
  });

  it('re-signs at once when a certificate is revoked, whatever its age', async () => {
    const { service, clock } = serviceAt(14);
    clock.now = T + 30 * DAY;
    const before = await service.currentCrl();
    await recordIssuedCertificate(database.handle.db, {
      serial: '0d0d',
      callsign: 'Delta',
      purpose: 'browser',
      notBefore: T,
      notAfter: T + 365 * DAY,
      issuedAt: T,
    });
    await revokeCertificate(database.handle.db, '0d0d', { at: clock.now, reason: null });
    clock.now += 1000;
    const after = await service.currentCrl();
    expect(after.pem).not.toBe(before.pem);
    expect(new X509Crl(after.pem).findRevoked('0d0d')).not.toBeNull();
    expect(datesOf(after.pem).nextUpdate).toBe(clock.now + 14 * DAY);
  });

  it('follows a shorter validity: 1 day valid, re-signed after 12 hours', async () => {
    const { service, clock } = serviceAt(1);
    clock.now = T + 60 * DAY;
    const first = datesOf((await service.currentCrl()).pem);
    expect(first.nextUpdate! - first.thisUpdate).toBe(DAY);
    clock.now += 12 * HOUR - 1000;
    expect(datesOf((await service.currentCrl()).pem).thisUpdate).toBe(first.thisUpdate);
    clock.now += 1000;
    expect(datesOf((await service.currentCrl()).pem).thisUpdate).toBe(clock.now);
  });
});
