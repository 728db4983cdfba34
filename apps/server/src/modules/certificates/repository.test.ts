import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import {
  findCertificateBySerial,
  listRevokedCertificates,
  recordIssuedCertificate,
  revocationStamp,
  revokeCertificate,
  revokeCertificatesOf,
} from './repository.js';
import type { NewCertificate } from './repository.js';

const T = 1_767_225_600_000;
const YEAR = 365 * 24 * 3_600_000;

function certificate(serial: string, callsign: string): NewCertificate {
  return { serial, callsign, purpose: 'browser', notBefore: T, notAfter: T + YEAR, issuedAt: T };
}

describeWithMigratedDatabase('certificate repository', (database) => {
  it('records an issued certificate and finds it by serial', async () => {
    await recordIssuedCertificate(database.handle.db, {
      ...certificate('0a01', 'Alpha'),
      purpose: 'tak-package',
    });

    expect(await findCertificateBySerial(database.handle.db, '0a01')).toEqual({
      serial: '0a01',
      callsign: 'Alpha',
      purpose: 'tak-package',
      notBefore: T,
      notAfter: T + YEAR,
      issuedAt: T,
      revokedAt: null,
      revocationReason: null,
      clientUid: null,
      madeBy: null,
      lastCheckedAt: null,
      lastCheckedFrom: null,
      caGeneration: 1,
    });
    expect(await findCertificateBySerial(database.handle.db, 'ffff')).toBeUndefined();
  });

  it('revokes one certificate once; the first revocation time and reason stay', async () => {
    await recordIssuedCertificate(database.handle.db, certificate('0b01', 'Bravo'));

    expect(
      await revokeCertificate(database.handle.db, '0b01', { at: T + 1, reason: 'keyCompromise' }),
    ).toBe(true);
    expect(
      await revokeCertificate(database.handle.db, '0b01', { at: T + 2, reason: 'superseded' }),
    ).toBe(false);
    expect(await revokeCertificate(database.handle.db, 'ffff', { at: T + 2, reason: null })).toBe(
      false,
    );
    expect(await findCertificateBySerial(database.handle.db, '0b01')).toMatchObject({
      revokedAt: T + 1,
      revocationReason: 'keyCompromise',
    });
  });

  it('revoke-all returns the certificates it revoked and changes only unrevoked rows of that callsign', async () => {
    for (const serial of ['0c01', '0c02', '0c03']) {
      await recordIssuedCertificate(database.handle.db, certificate(serial, 'Charlie'));
    }
    await recordIssuedCertificate(database.handle.db, certificate('0d01', 'Delta'));
    await revokeCertificate(database.handle.db, '0c02', { at: T + 1, reason: 'superseded' });

    const revoked = await revokeCertificatesOf(database.handle.db, 'CHARLIE', {
      at: T + 5,
      reason: 'cessationOfOperation',
    });

    expect(revoked).toEqual([
      { serial: '0c01', purpose: 'browser' },
      { serial: '0c03', purpose: 'browser' },
    ]);
    expect(await findCertificateBySerial(database.handle.db, '0c02')).toMatchObject({
      revokedAt: T + 1,
      revocationReason: 'superseded',
    });
    expect(await findCertificateBySerial(database.handle.db, '0c03')).toMatchObject({
      revokedAt: T + 5,
      revocationReason: 'cessationOfOperation',
    });
    expect(await findCertificateBySerial(database.handle.db, '0d01')).toMatchObject({
      revokedAt: null,
    });
    expect(
      await revokeCertificatesOf(database.handle.db, 'charlie', { at: T + 6, reason: null }),
    ).toEqual([]);
  });

  it('lists revoked certificates for the CRL, oldest revocation first', async () => {
    expect(await listRevokedCertificates(database.handle.db)).toEqual([
      { serial: '0b01', revokedAt: T + 1, reason: 'keyCompromise' },
      { serial: '0c02', revokedAt: T + 1, reason: 'superseded' },
      { serial: '0c01', revokedAt: T + 5, reason: 'cessationOfOperation' },
      { serial: '0c03', revokedAt: T + 5, reason: 'cessationOfOperation' },
    ]);
  });

  it('reads the revoked certificates in pages that fit together, across equal revocation times', async () => {
    const whole = await listRevokedCertificates(database.handle.db);
    for (const pageSize of [1, 2, 3, 4, 5]) {
      expect(
        await listRevokedCertificates(database.handle.db, pageSize),
        `pages of ${pageSize}`,
      ).toEqual(whole);
    }
  });

  it('changes the revocation stamp with every revocation, and only then', async () => {
    const before = await revocationStamp(database.handle.db);
    expect(before).toEqual({ revokedCount: 4, lastRevokedAt: T + 5 });

    await recordIssuedCertificate(database.handle.db, certificate('0e01', 'Echo'));
    expect(await revocationStamp(database.handle.db)).toEqual(before);

    await revokeCertificate(database.handle.db, '0e01', { at: T + 3, reason: null });
    expect(await revocationStamp(database.handle.db)).toEqual({
      revokedCount: 5,
      lastRevokedAt: T + 5,
    });
  });

  it('gives an empty stamp when nothing is revoked', async () => {
    const fresh = await database.createScratchDatabase();
    try {
      const { db } = await fresh.openMigrated();
      expect(await revocationStamp(db)).toEqual({ revokedCount: 0, lastRevokedAt: null });
    } finally {
      await fresh.drop();
    }
  });
});
