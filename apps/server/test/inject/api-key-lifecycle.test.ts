import type { AuditAction } from '@callsign/contract';
import { X509Certificate } from 'node:crypto';
import { X509Crl } from '@peculiar/x509';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CODE_ALPHABET,
  apiPaths,
  caExpiryResponseSchema,
  caPaths,
  checkAuthResponseSchema,
  errorResponseSchema,
  exchangeCodeResponseSchema,
  expiringResponseSchema,
  keyListResponseSchema,
  renewalCodeResponseSchema,
  revokeKeyResponseSchema,
  type KeyEntry,
} from '@callsign/contract';
import { CertificateAuthority } from '../../src/ca/authority.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { hashCode } from '../../src/modules/auth/codes.js';
import {
  findCertificateBySerial,
  recordIssuedCertificate,
} from '../../src/modules/certificates/repository.js';
import { CertificateService } from '../../src/modules/certificates/service.js';
import { RENEWAL_CODE_TTL_MS, RenewalCodes } from '../../src/modules/renewal/service.js';
import { Membership } from '../../src/modules/people/membership.js';
import { insertMember, setMemberStatus } from '../../src/modules/people/repository.js';
import { revokeMember } from '../../src/commands/revoke-member.js';
import type { ApiResponse } from '../support/api-client.js';
import { Scrape } from '../support/prometheus-text.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

// Keys over their life (docs/api.md) in-process (the inject tier: a key's certificate forwarded
// as the proxy does), on every database engine: the list of a member's keys, revoking one of them
// (by the member or an admin), the members whose keys run out, renewal codes, the bound on live
// keys, and the CA's own expiry. The portal issues keys valid for 10 days, so they are "expiring"
// from the start.

const DAY = 86_400_000;
const VALID = apiPaths.checkAuthValidUser;
const VALIDITY_DAYS = 10;

function expectDetail(response: ApiResponse, status: number): void {
  expect(response.status, response.text).toBe(status);
  errorResponseSchema.parse(response.json());
}

describe.each(testEngines())('keys over their life on $name', (engine) => {
  let portal: InjectPortal;
  let boss: MemberKey;

  const db = () => portal.portal.database.db;
  const asBoss = (method: string, urlPath: string) =>
    portal.api('mtls', method, urlPath, { key: boss });
  const withKey = (key: MemberKey, method: string, urlPath: string) =>
    portal.api('mtls', method, urlPath, { key });
  const jwt = async (callsign: string) =>
    (await portal.portal.tokens.issue({ scope: 'member', subject: callsign, ttlMs: 600_000 })).jwt;
  const keysOf = (response: ApiResponse) => {
    expect(response.status, response.text).toBe(200);
    return keyListResponseSchema.strict().parse(response.json()).keys;
  };
  const snapshot = () => snapshotTables(db());
  /** Revoked certificates of `purpose` as the portal's Prometheus counter has them. */
  const revokedCount = async (purpose: string) => {
    const scrape = await Scrape.parse(await portal.portal.metrics.text());
    return scrape.value('callsign_portal_certificates_revoked_total', { purpose });
  };

  /** A certificate service on the same database and CA, with its own validity and clock. */
  async function otherIssuer(validityDays: number, now = () => new Date()) {
    const ca = await CertificateAuthority.loadOrCreate({
      dir: portal.config.caDir,
      publicBaseUrl: portal.config.httpCaOrigin,
      now,
    });
    return new CertificateService(
      db(),
      ca,
      { validityDays, keyAlgorithm: 'ecdsa-p256', crlValidityDays: 14 },
      { members: new Membership(db()), now, keysPerHour: 1000 },
    );
  }

  async function issueWith(service: CertificateService, callsign: string) {
    return service.issueForMember({
      callsign,
      purpose: 'browser',
      key: { generate: 'ecdsa-p256' },
      actor: { callsign: 'test', clientAddress: null },
      // A test's own action, outside the portal's list (AUDIT_ACTION_GROUPS).
      audit: { action: 'test.issue-key' as AuditAction },
    });
  }

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({
      env: {
        ...env,
        PORTAL_CERT_VALIDITY_DAYS: String(VALIDITY_DAYS),
        PORTAL_KEY_ALGORITHM: 'ecdsa-p256',
        PORTAL_KEYS_PER_HOUR: '1000',
        PORTAL_RATE_LIMIT_FAILURES: '1000',
      },
    });
    return portal;
  });
  beforeAll(async () => {
    boss = await portal.addMember('Boss1', { roles: ['admin'] });
  });

  describe('GET me/keys', () => {
    it('lists every key of the caller with its purpose, dates and device; the key in use is current', async () => {
      const browser = await portal.addMember('Lister1');
      const packages = await withKey(browser, 'GET', apiPaths.instructions);
      expect(packages.status, packages.text).toBe(200);
      // A TAK client enrolled with its own key: recorded as the enrollment would record it.
      const enrolledAt = Date.now();
      await recordIssuedCertificate(db(), {
        serial: '7e57ab1e01',
        callsign: 'Lister1',
        purpose: 'tak-enroll',
        notBefore: enrolledAt,
        notAfter: enrolledAt + 30 * DAY,
        issuedAt: enrolledAt + 1000,
        clientUid: 'ANDROID-0123456789abcdef',
      });

      const keys = keysOf(await withKey(browser, 'GET', apiPaths.myKeys));

      expect(keys.map((key) => key.purpose)).toEqual(['tak-enroll', 'tak-package', 'browser']);
      const [enrolled, tak, own] = keys as [KeyEntry, KeyEntry, KeyEntry];
      expect(enrolled).toEqual({
        serial: '7e57ab1e01',
        purpose: 'tak-enroll',
        issued_at: new Date(enrolledAt + 1000).toISOString(),
        expires_at: new Date(enrolledAt + 30 * DAY).toISOString(),
        revoked_at: null,
        client_uid: 'ANDROID-0123456789abcdef',
        current: false,
        made_by: null,
        // No TAK Server asked about it yet; a member's own list never names the address.
        last_checked_at: null,
      });
      expect(tak).toMatchObject({ purpose: 'tak-package', client_uid: null, current: false });
      expect(own).toMatchObject({
        serial: browser.serial,
        purpose: 'browser',
        client_uid: null,
        revoked_at: null,
        current: true,
      });
      // The dates are the certificate's own.
      const certificate = new X509Certificate(browser.certificatePem);
      expect(own.expires_at).toBe(new Date(certificate.validTo).toISOString());
      expect(Date.parse(own.expires_at) - Date.parse(own.issued_at)).toBeGreaterThan(
        (VALIDITY_DAYS - 1) * DAY,
      );

      // With a bearer token the same list, and no key is the one in use.
      const overToken = keysOf(
        await portal.api('public', 'GET', apiPaths.myKeys, { bearer: await jwt('Lister1') }),
      );
      expect(overToken.map((key) => key.serial)).toEqual(keys.map((key) => key.serial));
      expect(overToken.every((key) => !key.current)).toBe(true);
    });

    it('shows only the caller’s keys, never a server certificate of the same name', async () => {
      const own = await portal.addMember('Lonely1');
      await portal.addMember('Neighbour1');
      await recordIssuedCertificate(db(), {
        serial: '5e7e7001',
        callsign: 'Lonely1',
        purpose: 'server',
        notBefore: 0,
        notAfter: Date.now() + DAY,
        issuedAt: Date.now(),
      });
      const keys = keysOf(await withKey(own, 'GET', apiPaths.myKeys));
      expect(keys.map((key) => key.serial)).toEqual([own.serial]);
    });
  });

  describe('DELETE me/keys/{serial}', () => {
    it('revokes one key: it is refused at once, the others keep working; audited and in the CRL', async () => {
      const phone = await portal.addMember('Loser1');
      const laptop = await portal.issueKey('Loser1');
      expect((await withKey(phone, 'GET', VALID)).status).toBe(200);

      const revokedBefore = await revokedCount('browser');
      // From the laptop, the member revokes the lost phone's key, naming it in capitals.
      const response = await withKey(laptop, 'DELETE', apiPaths.myKey(phone.serial.toUpperCase()));

      expect(response.status, response.text).toBe(200);
      expect(revokeKeyResponseSchema.strict().parse(response.json())).toEqual({ success: true });
      expectDetail(await withKey(phone, 'GET', VALID), 403);
      const still = await withKey(laptop, 'GET', VALID);
      expect(checkAuthResponseSchema.parse(still.json())).toMatchObject({ userid: 'Loser1' });
      const keys = keysOf(await withKey(laptop, 'GET', apiPaths.myKeys));
      expect(keys.find((key) => key.serial === phone.serial)?.revoked_at).not.toBeNull();
      expect(keys.find((key) => key.serial === laptop.serial)).toMatchObject({
        revoked_at: null,
        current: true,
      });
      expect(await findCertificateBySerial(db(), phone.serial)).toMatchObject({
        revocationReason: 'revoked by owner',
      });
      expect((await revokedCount('browser')) - revokedBefore).toBe(1);
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        actor: 'Loser1',
        action: 'key.revoke',
        target: 'Loser1',
        outcome: 'success',
        detail: { serial: phone.serial, purpose: 'browser', by: 'owner' },
      });
      const crl = await portal.api('public', 'GET', caPaths.crlPem);
      const revoked = new X509Crl(crl.text);
      expect(revoked.findRevoked(phone.serial)).not.toBeNull();
      expect(revoked.findRevoked(laptop.serial)).toBeNull();
    });

    it('revokes the key in use too: the next request made with it is refused', async () => {
      const only = await portal.addMember('Burner1');
      const response = await withKey(only, 'DELETE', apiPaths.myKey(only.serial));
      expect(response.status, response.text).toBe(200);
      expectDetail(await withKey(only, 'GET', apiPaths.myKeys), 403);
    });

    it('404 for another member’s key, a revoked one, an unknown or a server serial; nothing written', async () => {
      const mine = await portal.addMember('Owner1');
      const theirs = await portal.addMember('Other1');
      const gone = await portal.issueKey('Owner1');
      expect((await withKey(mine, 'DELETE', apiPaths.myKey(gone.serial))).status).toBe(200);
      const server = await portal.portal.certificates.issueServerCertificate(['owner1']);
      const before = await snapshot();

      for (const serial of [theirs.serial, gone.serial, 'abcdef0123', server.serial]) {
        expectDetail(await withKey(mine, 'DELETE', apiPaths.myKey(serial)), 404);
      }
      // Over a token as well: the answer says nothing about whose the key is.
      const token = await jwt('Owner1');
      expectDetail(
        await portal.api('public', 'DELETE', apiPaths.myKey(theirs.serial), { bearer: token }),
        404,
      );
      expectDetail(await withKey(mine, 'DELETE', apiPaths.myKey('not-a-serial')), 422);

      expect(await snapshot()).toBe(before);
      expect((await withKey(theirs, 'GET', VALID)).status).toBe(200);
    });
  });

  describe('admin: people/{callsign}/keys', () => {
    it('lists a member’s keys (none current) and revokes one of them, audited', async () => {
      const first = await portal.addMember('Field1');
      const second = await portal.issueKey('Field1');

      const keys = keysOf(await asBoss('GET', apiPaths.personKeys('FIELD1')));
      expect(keys.map((key) => key.serial)).toEqual([second.serial, first.serial]);
      expect(keys.every((key) => !key.current && key.purpose === 'browser')).toBe(true);

      const response = await asBoss('DELETE', apiPaths.personKey('field1', first.serial));

      expect(response.status, response.text).toBe(200);
      expect(revokeKeyResponseSchema.parse(response.json())).toEqual({ success: true });
      expectDetail(await withKey(first, 'GET', VALID), 403);
      expect((await withKey(second, 'GET', VALID)).status).toBe(200);
      expect(await findCertificateBySerial(db(), first.serial)).toMatchObject({
        revocationReason: 'revoked by admin',
      });
      const [event] = await listRecentAuditEvents(db(), 1);
      expect(event).toMatchObject({
        actor: 'Boss1',
        action: 'key.revoke',
        target: 'Field1',
        detail: { serial: first.serial, by: 'admin' },
      });
    });

    it('lists a revoked member’s keys; 404 for nobody and for a key of someone else', async () => {
      const key = await portal.addMember('Former1');
      const other = await portal.addMember('Bystander1');
      await revokeMember(db(), portal.portal.certificates, {
        callsign: 'Former1',
        actor: 'test',
        clientAddress: null,
      });
      const keys = keysOf(await asBoss('GET', apiPaths.personKeys('Former1')));
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ serial: key.serial });
      expect(keys[0]?.revoked_at).not.toBeNull();
      const before = await snapshot();

      expectDetail(await asBoss('GET', apiPaths.personKeys('Nobody9')), 404);
      expectDetail(await asBoss('DELETE', apiPaths.personKey('Former1', other.serial)), 404);
      expectDetail(await asBoss('DELETE', apiPaths.personKey('Former1', key.serial)), 404);

      expect(await snapshot()).toBe(before);
    });
  });

  describe('GET admin/expiring', () => {
    it('lists active members whose newest unrevoked key ends within the window, soonest first', async () => {
      const now = Date.now();
      // Keys made with short lifetimes: the portal's own (10 days), one of 60 days, and one
      // that a CA on a clock 30 days back made for a day (expired for 29 days).
      const longer = await otherIssuer(60);
      const past = await otherIssuer(1, () => new Date(now - 30 * DAY));
      for (const callsign of ['Soon1', 'Later1', 'Renewed1', 'Lapsed1', 'Quitter1', 'Dropped1']) {
        await insertMember(db(), {
          callsign,
          status: 'active',
          inviteCode: null,
          roles: [],
          at: now,
        });
      }
      await portal.issueKey('Soon1');
      await issueWith(longer, 'Later1');
      await portal.issueKey('Renewed1');
      await issueWith(longer, 'Renewed1');
      await issueWith(past, 'Lapsed1');
      await portal.issueKey('Quitter1');
      await revokeMember(db(), portal.portal.certificates, {
        callsign: 'Quitter1',
        actor: 'test',
        clientAddress: null,
      });
      // Dropped1's only key was revoked: nothing to renew.
      await portal.issueKey('Dropped1');
      await portal.portal.certificates.revokeAllOf(db(), 'Dropped1', 'test');

      const within = async (days?: number) => {
        const response = await asBoss(
          'GET',
          days === undefined ? apiPaths.expiring : `${apiPaths.expiring}?days=${days}`,
        );
        expect(response.status, response.text).toBe(200);
        const { members } = expiringResponseSchema.strict().parse(response.json());
        return members.filter((member) =>
          ['Soon1', 'Later1', 'Renewed1', 'Lapsed1', 'Quitter1', 'Dropped1'].includes(
            member.callsign,
          ),
        );
      };

      expect((await within(5)).map((member) => member.callsign)).toEqual(['Lapsed1']);
      const month = await within(30);
      expect(month.map((member) => member.callsign)).toEqual(['Lapsed1', 'Soon1']);
      expect(Date.parse(month[0]!.expires_at)).toBeLessThan(now);
      expect(Date.parse(month[1]!.expires_at)).toBeGreaterThan(now + (VALIDITY_DAYS - 1) * DAY);
      // 30 days unless told otherwise.
      expect(await within()).toEqual(month);
      expect((await within(90)).map((member) => member.callsign)).toEqual([
        'Lapsed1',
        'Soon1',
        'Later1',
        'Renewed1',
      ]);
      expectDetail(await asBoss('GET', `${apiPaths.expiring}?days=0`), 422);
      expectDetail(await asBoss('GET', `${apiPaths.expiring}?days=soon`), 422);
    });
  });

  describe('renewal codes', () => {
    const exchange = (code: string) =>
      portal.api('public', 'POST', apiPaths.exchangeCode, { json: { code } });

    async function lapsedMember(callsign: string) {
      const now = Date.now();
      await insertMember(db(), {
        callsign,
        status: 'active',
        inviteCode: null,
        roles: [],
        at: now,
      });
      const past = await otherIssuer(1, () => new Date(now - 30 * DAY));
      return issueWith(past, callsign);
    }

    it('signs a member whose key expired in again, once: their own callsign, a new key', async () => {
      const old = await lapsedMember('Sleeper1');
      const made = await asBoss('POST', apiPaths.renewalCode('sleeper1'));
      expect(made.status, made.text).toBe(200);
      const { renewal_code: code, expires_at: expiresAt } = renewalCodeResponseSchema
        .strict()
        .parse(made.json());
      expect(code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{8}$`));
      expect(Math.abs(Date.parse(expiresAt) - (Date.now() + RENEWAL_CODE_TTL_MS))).toBeLessThan(
        60_000,
      );
      // Kept only as a hash.
      expect(await snapshot()).not.toContain(code);
      expect(await snapshot()).toContain(hashCode(code));
      expect(await listRecentAuditEvents(db(), 1)).toMatchObject([
        { actor: 'Boss1', action: 'renewal-code.create', target: 'Sleeper1' },
      ]);

      // Entered in small letters, as a person might type it.
      const signedIn = await exchange(code.toLowerCase());
      expect(signedIn.status, signedIn.text).toBe(200);
      const token = exchangeCodeResponseSchema.parse(signedIn.json()).jwt;
      const who = await portal.api('public', 'GET', VALID, { bearer: token });
      expect(checkAuthResponseSchema.parse(who.json())).toMatchObject({
        type: 'jwt',
        userid: 'Sleeper1',
        payload: { scope: 'member', sub: 'Sleeper1' },
      });
      const download = await portal.api('public', 'GET', apiPaths.keyDownload('Sleeper1'), {
        bearer: token,
      });
      expect(download.status, download.text).toBe(200);
      expect(download.headers['content-type']).toBe('application/x-pkcs12');
      const keys = keysOf(await portal.api('public', 'GET', apiPaths.myKeys, { bearer: token }));
      expect(keys).toHaveLength(2);
      expect(keys[1]?.serial).toBe(old.serial);

      // Single use.
      expectDetail(await exchange(code), 403);
    });

    it('expires after 72 hours, and a new code replaces the unused one', async () => {
      await lapsedMember('Slow1');
      const codes = new RenewalCodes(
        db(),
        portal.portal.certificates,
        () => new Date(Date.now() - RENEWAL_CODE_TTL_MS - 1000),
      );
      const stale = await codes.create({ callsign: 'Boss1', clientAddress: null }, 'Slow1');
      expectDetail(await exchange(stale.code), 403);

      const first = renewalCodeResponseSchema.parse(
        (await asBoss('POST', apiPaths.renewalCode('Slow1'))).json(),
      );
      const second = renewalCodeResponseSchema.parse(
        (await asBoss('POST', apiPaths.renewalCode('Slow1'))).json(),
      );
      expect(second.renewal_code).not.toBe(first.renewal_code);
      expectDetail(await exchange(first.renewal_code), 403);
      expect((await exchange(second.renewal_code)).status).toBe(200);
    });

    it('only for an active member: 404 otherwise, and a code dies with its member', async () => {
      await insertMember(db(), {
        callsign: 'Waiting7',
        status: 'pending',
        inviteCode: null,
        roles: [],
        at: Date.now(),
      });
      await lapsedMember('Doomed1');
      const before = await snapshot();
      for (const callsign of ['Nobody7', 'Waiting7']) {
        expectDetail(await asBoss('POST', apiPaths.renewalCode(callsign)), 404);
      }
      expect(await snapshot()).toBe(before);

      const made = renewalCodeResponseSchema.parse(
        (await asBoss('POST', apiPaths.renewalCode('Doomed1'))).json(),
      );
      await setMemberStatus(db(), 'Doomed1', { status: 'revoked', at: Date.now() });
      expectDetail(await exchange(made.renewal_code), 403);
      expectDetail(await asBoss('POST', apiPaths.renewalCode('Doomed1')), 404);
    });
  });

  describe('the bound on live keys', () => {
    it('the 11th key supersedes the oldest: refused over mTLS from then on, audited', async () => {
      const first = await portal.addMember('Hoarder2');
      const token = await jwt('Hoarder2');
      for (let n = 0; n < 9; n++) {
        const download = await portal.api('public', 'GET', apiPaths.keyDownload('Hoarder2'), {
          bearer: token,
        });
        expect(download.status, download.text).toBe(200);
      }
      expect((await withKey(first, 'GET', VALID)).status).toBe(200);
      expect(
        keysOf(await withKey(first, 'GET', apiPaths.myKeys)).every((key) => !key.revoked_at),
      ).toBe(true);

      const revokedBefore = await revokedCount('browser');
      const eleventh = await portal.issueKey('Hoarder2');

      expectDetail(await withKey(first, 'GET', VALID), 403);
      expect((await withKey(eleventh, 'GET', VALID)).status).toBe(200);
      const keys = keysOf(await withKey(eleventh, 'GET', apiPaths.myKeys));
      expect(keys).toHaveLength(11);
      expect(keys.filter((key) => key.revoked_at !== null).map((key) => key.serial)).toEqual([
        first.serial,
      ]);
      expect(await findCertificateBySerial(db(), first.serial)).toMatchObject({
        revocationReason: 'superseded',
      });
      expect((await revokedCount('browser')) - revokedBefore).toBe(1);
      const events = await listRecentAuditEvents(db(), 2);
      expect(events.map((event) => event.action)).toEqual(['key.supersede', 'test.issue-key']);
      const crl = new X509Crl((await portal.api('public', 'GET', caPaths.crlPem)).text);
      expect(crl.findRevoked(first.serial)).not.toBeNull();
    });
  });

  describe('GET admin/ca', () => {
    it('says when the issuing and the root CA expire', async () => {
      const response = await asBoss('GET', apiPaths.caExpiry);
      expect(response.status, response.text).toBe(200);
      const answer = caExpiryResponseSchema.strict().parse(response.json());
      const [issuing, root] = portal.portal.ca.chainPem
        .split(/(?<=-----END CERTIFICATE-----\n)/)
        .filter((pem) => pem.trim() !== '')
        .map((pem) => new X509Certificate(pem));
      expect(answer.issuing).toEqual({
        subject: issuing!.subject,
        expires_at: new Date(issuing!.validTo).toISOString(),
      });
      expect(answer.root.expires_at).toBe(new Date(root!.validTo).toISOString());
      // The portal's own CA: its issuing CA signs the members, under its self-signed root.
      expect(answer.chain).toEqual([
        { ...answer.issuing, signs_members: true, self_signed: false },
        { ...answer.root, signs_members: false, self_signed: true },
      ]);
      // Five and twenty years from the first start.
      expect(Date.parse(answer.issuing.expires_at) - Date.now()).toBeGreaterThan(4 * 365 * DAY);
      expect(Date.parse(answer.root.expires_at) - Date.now()).toBeGreaterThan(19 * 365 * DAY);
    });
  });
});
