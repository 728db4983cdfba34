import { webcrypto } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { CertificateAuthority } from '../../ca/authority.js';
import { loadTestCa } from '../../ca/test-ca.testing.js';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { Membership } from '../people/membership.js';
import { recordIssuedCertificate, revokeCertificate } from './repository.js';
import { CertificateService } from './service.js';

// The OCSP responder as every instance of the portal runs it: answers cached in memory, statuses
// read from the shared database on every request (docs/operations.md#tak-readiness).
describeWithMigratedDatabase('OCSP answers across instances', (database) => {
  let serial: string;
  let instances: [CertificateService, CertificateService];

  beforeAll(async () => {
    const caDir = path.join(database.scratch.dataDir, 'ca');
    const publicBaseUrl = 'https://portal.example.org';
    // Two processes: each loads the CA files itself and has its own connection to the database.
    const first = await loadTestCa({ dir: caDir, publicBaseUrl });
    const second = await CertificateAuthority.loadOrCreate({ dir: caDir, publicBaseUrl });
    const otherHandle = database.scratch.open();
    const service = (ca: CertificateAuthority, db: typeof database.handle.db) =>
      new CertificateService(
        db,
        ca,
        { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
        { members: new Membership(db) },
      );
    instances = [service(first, database.handle.db), service(second, otherHandle.db)];
    const issued = await first.issueMemberCertificate({
      callsign: 'Otter4',
      validityDays: 30,
      keyAlgorithm: 'ecdsa-p256',
    });
    serial = issued.serial;
    await recordIssuedCertificate(database.handle.db, {
      serial,
      callsign: 'Otter4',
      purpose: 'browser',
      notBefore: issued.notBefore.getTime(),
      notAfter: issued.notAfter.getTime(),
      issuedAt: Date.now(),
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers from memory, and a revocation on one instance at the next request on both', async () => {
    const [one, other] = instances;
    expect((await one.askOcsp(serial)).status).toBe('good');
    expect((await other.askOcsp(serial)).status).toBe('good');

    const sign = vi.spyOn(webcrypto.subtle, 'sign');
    for (let i = 0; i < 50; i++) {
      expect((await one.askOcsp(serial)).status).toBe('good');
      expect((await other.askOcsp(serial)).status).toBe('good');
    }
    expect(sign).not.toHaveBeenCalled();

    const revokedAt = Date.now();
    expect(
      await revokeCertificate(database.handle.db, serial, { at: revokedAt, reason: 'test' }),
    ).toBe(true);
    const onOther = await other.askOcsp(serial);
    expect(onOther).toMatchObject({ status: 'revoked' });
    expect(onOther.revokedAt?.getTime()).toBe(Math.floor(revokedAt / 1000) * 1000);
    expect((await one.askOcsp(serial)).status).toBe('revoked');
    // One new answer signed per instance, then served from memory again.
    expect((await other.askOcsp(serial)).status).toBe('revoked');
    expect(sign).toHaveBeenCalledTimes(2);
  });

  it('answers unauthorized, unsigned, for a serial the record does not hold', async () => {
    const sign = vi.spyOn(webcrypto.subtle, 'sign');
    await expect(instances[1].askOcsp('0badc0ffee')).rejects.toThrow(
      /refused the request \(status 6\)/,
    );
    expect(sign).not.toHaveBeenCalled();
  });
});
