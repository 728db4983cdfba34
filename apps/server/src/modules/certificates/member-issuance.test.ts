import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { CertificateAuthority } from '../../ca/authority.js';
import { KeyPool } from '../../ca/key-pool.js';
import { loadTestCa } from '../../ca/test-ca.testing.js';
import { PortalMetrics } from '../../metrics/portal-metrics.js';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { BadRequestError, ForbiddenError, TooManyRequestsError } from '../../errors.js';
import { listRecentAuditEvents } from '../audit/recent-events.testing.js';
import { Membership } from '../people/membership.js';
import { insertMember } from '../people/repository.js';
import type { MemberIssueRequest, MemberPurpose } from './member-issuance.js';
import { MintingSlots } from './minting-limits.js';
import { findCertificateBySerial } from './repository.js';
import { CertificateService } from './service.js';

const T = 1_767_225_600_000;
const MINUTE = 60_000;
const PAUSE_MS = 200;

/**
 * The CA with its member-issuing seam watched: how many key generations are inside at once, and,
 * when `hold` is set, each one waits there until the test lets it go.
 */
function watchedCa(real: CertificateAuthority) {
  const state = { calls: 0, inside: 0, mostInside: 0, hold: false };
  const held: (() => void)[] = [];
  const ca = Object.create(real) as CertificateAuthority;
  ca.issueMemberCertificate = async (options) => {
    state.calls += 1;
    state.inside += 1;
    state.mostInside = Math.max(state.mostInside, state.inside);
    try {
      if (state.hold) await new Promise<void>((resolve) => held.push(resolve));
      return await real.issueMemberCertificate(options);
    } finally {
      state.inside -= 1;
    }
  };
  return {
    ca,
    state,
    held,
    releaseOne() {
      held.shift()?.();
    },
    releaseAll() {
      state.hold = false;
      for (const release of held.splice(0)) release();
    },
  };
}

/** Waits until `condition` holds, giving the database and the event loop time to move. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 2_000; tries++) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`gave up waiting until ${what}`);
}

describeWithMigratedDatabase('member issuance', (database) => {
  let realCa: CertificateAuthority;
  let clock: number;
  const now = () => new Date(clock);
  const db = () => database.handle.db;

  beforeAll(async () => {
    realCa = await loadTestCa({
      dir: path.join(database.scratch.dataDir, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
    });
  });

  function service(
    ca: CertificateAuthority,
    options: {
      slots?: number;
      handle?: typeof database.handle;
      refusalPauseMs?: number;
      metrics?: PortalMetrics;
      keyPool?: KeyPool;
    } = {},
  ) {
    const handle = options.handle ?? database.handle;
    return new CertificateService(
      handle.db,
      ca,
      { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
      {
        members: new Membership(handle.db),
        now,
        mintingSlots: new MintingSlots(options.slots ?? 2),
        refusalPauseMs: options.refusalPauseMs ?? 0,
        ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
        ...(options.keyPool === undefined ? {} : { keyPool: options.keyPool }),
      },
    );
  }

  /** A second handle on the same database: another instance of the portal, as far as it knows. */
  async function withOtherInstance(work: (other: typeof database.handle) => Promise<void>) {
    const other = database.scratch.open();
    try {
      await work(other);
    } finally {
      await other.close();
    }
  }

  async function member(callsign: string, status: 'active' | 'pending' = 'active') {
    await insertMember(db(), { callsign, status, inviteCode: null, roles: [], at: T });
  }

  function generated(callsign: string, purpose: MemberPurpose = 'browser') {
    return {
      callsign,
      purpose,
      key: { generate: 'ecdsa-p256' },
      actor: { callsign, clientAddress: '192.0.2.7' },
      audit: { action: 'key.download', detail: { format: 'legacy' } },
    } satisfies MemberIssueRequest;
  }

  async function certificatesOf(callsign: string): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from issued_certificates where callsign = ${callsign}`.execute(db());
    return Number(rows[0]?.n);
  }

  async function auditsOf(callsign: string): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from audit_events where target = ${callsign}`.execute(db());
    return Number(rows[0]?.n);
  }

  it('issues a key made here: the private key comes back, the certificate is recorded and audited', async () => {
    clock = T;
    await member('Keymade1');
    const issued = await service(realCa).issueForMember(generated('KEYMADE1'));

    expect(issued.callsign).toBe('Keymade1');
    expect(new X509Certificate(issued.certificatePem).subject).toBe('CN=Keymade1');
    expect(issued.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(await findCertificateBySerial(db(), issued.serial)).toMatchObject({
      callsign: 'Keymade1',
      purpose: 'browser',
      issuedAt: T,
      revokedAt: null,
    });
    const [event] = await listRecentAuditEvents(db(), 1);
    expect(event).toMatchObject({
      actor: 'KEYMADE1',
      action: 'key.download',
      target: 'Keymade1',
      clientAddress: '192.0.2.7',
      detail: { serial: issued.serial, format: 'legacy' },
    });
  });

  it('uses a key pair from the pool once, and makes the key on the request when the pool is empty', async () => {
    clock = T;
    await member('Pooluser1');
    let busy = false;
    const pool = new KeyPool({ algorithm: 'ecdsa-p256', size: 1, lowWater: 0, busy: () => busy });
    try {
      await until(() => pool.available === 1, 'the pool is full');
      const pooledKey = pool.take('ecdsa-p256');
      expect(pooledKey).toBeDefined();
      // Put back through a pool of one that hands out exactly that key, then nothing.
      const handedOut: (typeof pooledKey)[] = [];
      const oneKey = Object.create(pool) as KeyPool;
      let left = pooledKey;
      oneKey.take = () => {
        const given = left;
        left = undefined;
        handedOut.push(given);
        return given;
      };
      busy = true;
      const issuer = service(realCa, { keyPool: oneKey });
      const first = await issuer.issueForMember(generated('Pooluser1'));
      const second = await issuer.issueForMember(generated('Pooluser1'));

      expect(handedOut).toEqual([pooledKey, undefined]);
      const spkiOf = (pem: string) =>
        new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
      expect(spkiOf(first.certificatePem)).toEqual(pooledKey?.publicKeyDer);
      // Drained: the second key was made on the request, a different one, and it is issued.
      expect(spkiOf(second.certificatePem)).not.toEqual(pooledKey?.publicKeyDer);
      expect(second.privateKeyPem).toContain('BEGIN PRIVATE KEY');
      expect(await certificatesOf('Pooluser1')).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it.each([
    [
      'EC P-256',
      'DeviceEc1',
      () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey,
    ],
    ['RSA-2048', 'DeviceRsa1', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey],
  ])(
    'signs a device’s %s public key (a CSR’s): no private key in the answer, recorded and audited',
    async (_name, callsign, makeKey) => {
      clock = T;
      await member(callsign);
      const publicKey = makeKey();
      const signed = await service(realCa).issueForMember({
        callsign: callsign.toUpperCase(),
        purpose: 'tak-package',
        key: { publicKey },
        actor: { callsign, clientAddress: null },
        audit: { action: 'tak.enroll', detail: { clientUid: 'ANDROID-1' } },
      });

      expect(signed).not.toHaveProperty('privateKeyPem');
      expect(signed.callsign).toBe(callsign);
      const certificate = new X509Certificate(signed.certificatePem);
      expect(certificate.subject).toBe(`CN=${callsign}`);
      expect(certificate.publicKey.export({ type: 'spki', format: 'der' })).toEqual(
        publicKey.export({ type: 'spki', format: 'der' }),
      );
      expect(certificate.checkIssued(new X509Certificate(realCa.issuingCertificatePem))).toBe(true);
      expect(await findCertificateBySerial(db(), signed.serial)).toMatchObject({
        callsign,
        purpose: 'tak-package',
      });
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        action: 'tak.enroll',
        target: callsign,
        detail: { serial: signed.serial, clientUid: 'ANDROID-1' },
      });
    },
  );

  it.each([
    ['RSA-1024', () => generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey],
    [
      'RSA-2048 with exponent 3',
      () => generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 }).publicKey,
    ],
    ['EC P-521', () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).publicKey],
    ['Ed25519', () => generateKeyPairSync('ed25519').publicKey],
  ])('refuses a device’s %s key with 400, writing nothing', async (_name, makeKey) => {
    await member('Weakkey1');
    const watched = watchedCa(realCa);
    const signMember = watched.ca.signMemberCertificate.bind(watched.ca);
    let signed = 0;
    watched.ca.signMemberCertificate = (options) => {
      signed += 1;
      return signMember(options);
    };
    await expect(
      service(watched.ca).issueForMember({
        callsign: 'Weakkey1',
        purpose: 'tak-package',
        key: { publicKey: makeKey() },
        actor: { callsign: 'Weakkey1', clientAddress: null },
        audit: { action: 'tak.enroll' },
      }),
    ).rejects.toThrow(BadRequestError);
    expect(signed).toBe(0);
    expect(await certificatesOf('Weakkey1')).toBe(0);
    expect(await auditsOf('Weakkey1')).toBe(0);
  });

  it('records the enrolling device and runs the caller’s step in the recording transaction', async () => {
    clock = T;
    await member('Device2');
    const seen: string[] = [];
    const signed = await service(realCa).issueForMember({
      callsign: 'Device2',
      purpose: 'tak-enroll',
      key: { publicKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey },
      actor: { callsign: 'Device2', clientAddress: null },
      audit: { action: 'tak.enroll' },
      clientUid: 'ANDROID-0123456789abcdef',
      alongside: async (trx, certificate) => {
        // The certificate is already recorded in this transaction when the step runs.
        const row = await trx
          .selectFrom('issued_certificates')
          .select('serial')
          .where('serial', '=', certificate.serial)
          .executeTakeFirst();
        seen.push(`${certificate.callsign} ${row?.serial ?? 'missing'}`);
      },
    });

    expect(seen).toEqual([`Device2 ${signed.serial}`]);
    const row = await db()
      .selectFrom('issued_certificates')
      .select(['purpose', 'client_uid'])
      .where('serial', '=', signed.serial)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ purpose: 'tak-enroll', client_uid: 'ANDROID-0123456789abcdef' });
  });

  it('records and audits nothing when the caller’s step in the transaction fails', async () => {
    clock = T;
    await member('Device3');
    const attempt = service(realCa).issueForMember({
      callsign: 'Device3',
      purpose: 'tak-enroll',
      key: { publicKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey },
      actor: { callsign: 'Device3', clientAddress: null },
      audit: { action: 'tak.enroll' },
      alongside: () => Promise.reject(new ForbiddenError('token already spent')),
    });

    await expect(attempt).rejects.toThrow('token already spent');
    expect(await certificatesOf('Device3')).toBe(0);
    expect(await auditsOf('Device3')).toBe(0);
  });

  it('refuses a member who is not active with 403 before any key is made', async () => {
    await member('Waiting1', 'pending');
    const watched = watchedCa(realCa);
    await expect(service(watched.ca).issueForMember(generated('Waiting1'))).rejects.toThrow(
      ForbiddenError,
    );
    await expect(service(watched.ca).issueForMember(generated('Nobody1'))).rejects.toThrow(
      ForbiddenError,
    );
    expect(watched.state.calls).toBe(0);
    expect(await certificatesOf('Waiting1')).toBe(0);
  });

  it('the 11th key of a rolling hour is 429 with Retry-After; nothing is minted or written', async () => {
    await member('Hasty1');
    const watched = watchedCa(realCa);
    const certificates = service(watched.ca, { refusalPauseMs: PAUSE_MS });
    // Ten keys, one a minute, keys and TAK packages alike.
    for (let n = 0; n < 10; n++) {
      clock = T + n * MINUTE;
      await certificates.issueForMember(
        generated('Hasty1', n % 2 === 0 ? 'browser' : 'tak-package'),
      );
    }
    expect(watched.state.calls).toBe(10);

    clock = T + 30 * MINUTE;
    const asked = performance.now();
    const refused = await certificates.issueForMember(generated('hasty1')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    // Answered only after the pause: a client retrying in a loop asks at that pace.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(PAUSE_MS - 1);
    // The first of the ten leaves the window at T + 60 min: 30 minutes from now.
    expect((refused as TooManyRequestsError).headers['retry-after']).toBe(String(30 * 60));
    expect(watched.state.calls).toBe(10);
    expect(await certificatesOf('Hasty1')).toBe(10);
    expect(await auditsOf('Hasty1')).toBe(10);

    // Rolling: once the first key is an hour old, one more is allowed, and then again not.
    clock = T + 60 * MINUTE + 1;
    await certificates.issueForMember(generated('Hasty1'));
    await expect(certificates.issueForMember(generated('Hasty1'))).rejects.toThrow(
      TooManyRequestsError,
    );
    expect(await certificatesOf('Hasty1')).toBe(11);
  });

  it('counts the hour in the database: two instances share one member’s limit', async () => {
    clock = T;
    await member('Twice1');
    await withOtherInstance(async (other) => {
      const first = service(realCa);
      const second = service(realCa, { handle: other });
      for (let n = 0; n < 5; n++) {
        await first.issueForMember(generated('Twice1'));
        await second.issueForMember(generated('Twice1'));
      }
      await expect(first.issueForMember(generated('Twice1'))).rejects.toThrow(TooManyRequestsError);
      await expect(second.issueForMember(generated('Twice1'))).rejects.toThrow(
        TooManyRequestsError,
      );
      expect(await certificatesOf('Twice1')).toBe(10);
    });
  });

  it('two instances racing for the last key of the hour record only one of them', async () => {
    clock = T;
    await member('Racer9');
    await withOtherInstance(async (other) => {
      const first = watchedCa(realCa);
      const second = watchedCa(realCa);
      const here = service(first.ca);
      const there = service(second.ca, { handle: other });
      for (let n = 0; n < 9; n++) await here.issueForMember(generated('Racer9'));

      // Both pass the check before minting (9 of 10), then meet when they record.
      first.state.hold = true;
      second.state.hold = true;
      const racing = [
        here.issueForMember(generated('Racer9')),
        there.issueForMember(generated('Racer9')),
      ];
      await until(
        () => first.held.length === 1 && second.held.length === 1,
        'both instances are minting',
      );
      first.releaseAll();
      second.releaseAll();
      const outcomes = await Promise.allSettled(racing);

      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const [refused] = outcomes.filter((o) => o.status === 'rejected');
      // PostgreSQL: the membership lock orders them and the second counts ten. SQLite: the
      // second writer's snapshot is stale and it fails (SQLITE_BUSY) instead of committing.
      if (database.engine === 'postgres') {
        expect(refused?.reason).toBeInstanceOf(TooManyRequestsError);
      }
      expect(await certificatesOf('Racer9')).toBe(10);
    });
  });

  it('one mint in flight per member: a second request meanwhile is 429 (Retry-After: 1), others go on', async () => {
    clock = T;
    await member('Eager1');
    await member('Calm1');
    const watched = watchedCa(realCa);
    watched.state.hold = true;
    const metrics = new PortalMetrics({ version: 'test' });
    const certificates = service(watched.ca, { metrics });
    const counted = async (name: string, labels: Record<string, string> = {}) =>
      (await metrics.registry.getSingleMetric(name)?.get())?.values.find((value) =>
        Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
      )?.value ?? 0;

    const first = certificates.issueForMember(generated('Eager1'));
    await until(() => watched.held.length === 1, 'the first key generation is under way');
    expect(await counted('callsign_portal_key_generations_in_flight')).toBe(1);
    const second = await certificates.issueForMember(generated('EAGER1')).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TooManyRequestsError);
    expect((second as TooManyRequestsError).headers['retry-after']).toBe('1');
    expect(
      await counted('callsign_portal_key_generation_refusals_total', { reason: 'one-at-a-time' }),
    ).toBe(1);

    // Another member is not held up by Eager1's mint.
    const calm = certificates.issueForMember(generated('Calm1'));
    await until(() => watched.held.length === 2, 'Calm1’s key generation is under way');
    watched.releaseAll();
    await expect(first).resolves.toMatchObject({ callsign: 'Eager1' });
    await expect(calm).resolves.toMatchObject({ callsign: 'Calm1' });
    expect(watched.state.calls).toBe(2);
    expect(await certificatesOf('Eager1')).toBe(1);
    expect(await counted('callsign_portal_key_generations_in_flight')).toBe(0);
    expect(await counted('callsign_portal_certificates_issued_total', { purpose: 'browser' })).toBe(
      2,
    );

    // Once the first is done, the member may mint again.
    await expect(certificates.issueForMember(generated('Eager1'))).resolves.toMatchObject({
      callsign: 'Eager1',
    });
  });

  it('no more key generations at once than the slots, and packing waits for a slot too', async () => {
    clock = T;
    const callsigns = ['Crowd1', 'Crowd2', 'Crowd3', 'Crowd4', 'Crowd5'];
    for (const callsign of callsigns) await member(callsign);
    const watched = watchedCa(realCa);
    watched.state.hold = true;
    const slots = new MintingSlots(2);
    const certificates = new CertificateService(
      db(),
      watched.ca,
      { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
      { members: new Membership(db()), now, mintingSlots: slots, refusalPauseMs: 0 },
    );
    const all = callsigns.map((callsign) => certificates.issueForMember(generated(callsign)));

    // Every request is accounted for: inside the CA's seam, or waiting for a slot.
    await until(
      () => watched.held.length + slots.queued === callsigns.length,
      'all five requests reach the seam or the queue',
    );
    expect(watched.held.length).toBe(2);
    for (let released = 1; released <= callsigns.length; released++) {
      watched.releaseOne();
      const left = callsigns.length - released;
      await until(
        () => watched.held.length === Math.min(2, left) && slots.queued === Math.max(0, left - 2),
        'the next key generation takes the freed slot',
      );
    }
    await Promise.all(all);
    expect(watched.state.calls).toBe(5);
    expect(watched.state.mostInside).toBe(2);

    // A keystore is packed in the slot of its key generation: it waits for a slot like one.
    watched.state.hold = true;
    const busy = [
      certificates.issueForMember(generated('Crowd1')),
      certificates.issueForMember(generated('Crowd2')),
    ];
    await until(() => watched.held.length === 2, 'both slots are taken');
    const keystore = certificates.issueKeystore(
      {
        callsign: 'Crowd3',
        purpose: 'browser',
        actor: { callsign: 'Crowd3', clientAddress: null },
        audit: { action: 'key.download' },
      },
      'legacy',
    );
    await until(() => slots.queued === 1, 'the keystore waits for a slot');
    watched.releaseAll();
    await Promise.all(busy);
    const packed = await keystore;
    expect(packed.keystore.length).toBeGreaterThan(0);
    // The private key leaves only inside the keystore.
    expect(packed).not.toHaveProperty('privateKeyPem');
    expect(watched.state.mostInside).toBe(2);
  });
});

describeWithMigratedDatabase('the bound on live keys', (database) => {
  const DAY = 86_400_000;
  let clock = T;
  let certificates: CertificateService;
  const db = () => database.handle.db;

  beforeAll(async () => {
    // The CA on the test's clock too, so that keys expire when the test says.
    const ca = await loadTestCa({
      dir: path.join(database.scratch.dataDir, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
      now: () => new Date(clock),
    });
    certificates = new CertificateService(
      db(),
      ca,
      { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
      {
        members: new Membership(db()),
        now: () => new Date(clock),
        keysPerHour: 1000,
        maxKeysPerMember: 10,
        refusalPauseMs: 0,
      },
    );
  });

  async function issue(callsign: string, purpose: MemberPurpose) {
    clock += 1000;
    return certificates.issueForMember({
      callsign,
      purpose,
      key: { generate: 'ecdsa-p256' },
      actor: { callsign, clientAddress: '192.0.2.8' },
      audit: { action: 'key.download' },
    });
  }

  async function liveSerials(callsign: string): Promise<string[]> {
    const rows = await db()
      .selectFrom('issued_certificates')
      .select('serial')
      .where('callsign', '=', callsign)
      .where('revoked_at', 'is', null)
      .orderBy('issued_at')
      .execute();
    return rows.map((row) => row.serial);
  }

  it('the 11th key revokes the oldest as superseded, audited, whatever the purposes', async () => {
    clock = T;
    await insertMember(db(), {
      callsign: 'Hoarder1',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });
    const purposes: MemberPurpose[] = ['browser', 'tak-package', 'tak-enroll'];
    const serials: string[] = [];
    for (let n = 0; n < 10; n++) serials.push((await issue('Hoarder1', purposes[n % 3]!)).serial);
    expect(await liveSerials('Hoarder1')).toEqual(serials);

    const eleventh = await issue('Hoarder1', 'browser');

    expect(await liveSerials('Hoarder1')).toEqual([...serials.slice(1), eleventh.serial]);
    expect(await findCertificateBySerial(db(), serials[0]!)).toMatchObject({
      revokedAt: clock,
      revocationReason: 'superseded',
    });
    const [superseded, issued] = await listRecentAuditEvents(db(), 2);
    expect(superseded).toMatchObject({
      at: clock,
      actor: 'Hoarder1',
      action: 'key.supersede',
      target: 'Hoarder1',
      clientAddress: '192.0.2.8',
      detail: { serial: serials[0], supersededBy: eleventh.serial },
    });
    expect(issued).toMatchObject({ action: 'key.download', detail: { serial: eleventh.serial } });

    // The next one supersedes the next oldest: never more than ten live keys.
    const twelfth = await issue('Hoarder1', 'tak-package');
    expect(await liveSerials('Hoarder1')).toEqual([
      ...serials.slice(2),
      eleventh.serial,
      twelfth.serial,
    ]);
  });

  it('counts only live keys: expired and revoked ones are left as they are', async () => {
    clock = T;
    await insertMember(db(), {
      callsign: 'Veteran1',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });
    const old: string[] = [];
    for (let n = 0; n < 8; n++) old.push((await issue('Veteran1', 'browser')).serial);
    // A month later those eight have expired: nine new keys supersede nothing.
    clock = T + 31 * DAY;
    for (let n = 0; n < 9; n++) await issue('Veteran1', 'tak-package');
    const rows = await db()
      .selectFrom('issued_certificates')
      .select(['serial', 'revoked_at'])
      .where('callsign', '=', 'Veteran1')
      .execute();
    expect(rows).toHaveLength(17);
    expect(rows.every((row) => row.revoked_at === null)).toBe(true);
    expect(old.every((serial) => rows.some((row) => row.serial === serial))).toBe(true);
  });

  it('the new key and the supersede commit together: a refused issuance revokes nothing', async () => {
    clock = T;
    await insertMember(db(), {
      callsign: 'Leaver1',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });
    for (let n = 0; n < 10; n++) await issue('Leaver1', 'browser');
    const before = await liveSerials('Leaver1');
    // Revoked between the checks and the record: the transaction refuses and nothing changes.
    const members = new Membership(db());
    const racing = new CertificateService(
      db(),
      await CertificateAuthority.loadOrCreate({
        dir: path.join(database.scratch.dataDir, 'ca'),
        publicBaseUrl: 'https://portal.example.org',
      }),
      { validityDays: 30, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
      {
        members: {
          activeCallsign: (callsign) => members.activeCallsign(callsign),
          whileActive: async (callsign, work) => {
            await db()
              .updateTable('members')
              .set({ status: 'revoked' })
              .where('callsign', '=', callsign)
              .execute();
            return members.whileActive(callsign, work);
          },
        },
        now: () => new Date(clock),
        keysPerHour: 1000,
        maxKeysPerMember: 10,
        refusalPauseMs: 0,
      },
    );
    await expect(
      racing.issueForMember({
        callsign: 'Leaver1',
        purpose: 'browser',
        key: { generate: 'ecdsa-p256' },
        actor: { callsign: 'Leaver1', clientAddress: null },
        audit: { action: 'key.download' },
      }),
    ).rejects.toThrow(ForbiddenError);
    expect(await liveSerials('Leaver1')).toEqual(before);
  });
});
