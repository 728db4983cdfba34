import { X509Certificate, createPublicKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  takEnrollmentTokenResponseSchema,
  takPaths,
  type TakEnrollmentTokenResponse,
} from '@callsign/contract';
import { keytoolList } from '../src/ca/openssl-cli.testing.js';
import { testEngines, type ScratchDatabase } from '../src/db/test-engines.testing.js';
import { revokeMember } from '../src/commands/revoke-member.js';
import {
  callFace,
  CSR_BODIES,
  derOfLines,
  openssl,
  opensslCsr,
  type DeviceKey,
  type FaceTarget,
} from './support/tak-client.js';
import { validUserStatus } from './support/mtls-status.js';
import { startTestPortal, type MemberKey, type TestPortal } from './support/test-portal.js';

/**
 * One-scan TAK enrollment (issue 16): the enrollment face driven as the TAK clients drive it
 * (support/tak-client.ts: requests written from ATAK's, the iOS clients' and node-tak's sources,
 * keys and CSRs from the openssl binary), the tokens' rules, and what the certificate then opens.
 */

const CONFIG = '/Marti/api/tls/config';
const SIGN_V2 = '/Marti/api/tls/signClient/v2';
const SIGN_LEGACY = '/Marti/api/tls/signClient';
const PROFILE = '/Marti/api/tls/profile/enrollment';
const DEPLOYMENT = 'portal';

/** `keytool -list` of a PKCS#12 file; undefined where no JDK is installed. */
async function keytoolListed(file: string, password: string): Promise<string | undefined> {
  try {
    return await keytoolList(file, password);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** ATAK's subject order for {CN, O, OU} (a Java HashMap's): OU, CN, O. */
const atakSubject = (callsign: string) => `/OU=members/CN=${callsign}/O=${DEPLOYMENT}`;

describe.each(testEngines())('TAK enrollment on $name', (engine) => {
  let scratch: ScratchDatabase;
  let portal: TestPortal;
  let face: FaceTarget;
  let admin: MemberKey;
  let workDir: string;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    portal = await startTestPortal({
      env: {
        DATABASE_URL: scratch.options.databaseUrl ?? '',
        PORTAL_KEYS_PER_HOUR: '1000',
        PORTAL_RATE_LIMIT_FAILURES: '40',
      },
    });
    const enrollPort = portal.takEnroll?.port;
    if (enrollPort === undefined) throw new Error('the enrollment face is not listening');
    face = { port: enrollPort, servername: portal.config.takHost, ca: portal.portal.ca.chainPem };
    admin = await portal.addMember('Station1', { roles: ['admin'] });
    workDir = await mkdtemp(path.join(os.tmpdir(), 'tak-enroll-test-'));
  }, 60_000);

  afterAll(async () => {
    await portal.destroy();
    await scratch.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  /** A token as the member's page asks for one (their key on the mTLS face). */
  async function tokenFor(key: MemberKey): Promise<TakEnrollmentTokenResponse> {
    const response = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key });
    expect(response.status, response.text).toBe(200);
    return takEnrollmentTokenResponseSchema.parse(response.json());
  }

  /** A token as the admin's enrollment station asks for one. */
  function stationToken(callsign: string) {
    return portal.api('mtls', 'POST', takPaths.enrollmentTokenFor(callsign), { key: admin });
  }

  /** A call to the mTLS face presenting a device's certificate and key. */
  function asDevice(certificatePem: string, device: DeviceKey): Promise<number> {
    const face = {
      port: portal.port,
      mtlsHost: portal.config.mtlsHost,
      ca: portal.portal.ca.chainPem,
    };
    return validUserStatus(face, certificatePem, device.keyPem);
  }

  /** The certificate chains to the portal's published CA (`/ca/ca.pem`, fetched over HTTPS). */
  async function chainsToPublishedCa(certificatePem: string): Promise<void> {
    const published = await portal.api('public', 'GET', '/ca/ca.pem');
    expect(published.status).toBe(200);
    const caFile = path.join(workDir, 'ca.pem');
    const leafFile = path.join(workDir, 'leaf.pem');
    await writeFile(caFile, published.text);
    await writeFile(leafFile, certificatePem);
    expect(await openssl(['verify', '-CAfile', caFile, leafFile])).toContain(': OK');
  }

  function samePublicKey(certificatePem: string, device: DeviceKey): boolean {
    const issued = new X509Certificate(certificatePem).publicKey.export({
      type: 'spki',
      format: 'der',
    });
    const own = createPublicKey(device.keyPem).export({ type: 'spki', format: 'der' });
    return issued.equals(own);
  }

  describe('ATAK 4.x, as its source sends it (legacy signClient)', () => {
    it('reads the config, enrolls a SHA-1 RSA-4096 CSR, gets the PKCS#12 and the profile, and the certificate opens the mTLS face', async () => {
      const member = await portal.addMember('Atak4x1');
      // The admin's preset for this member, which the profile hands to ATAK.
      await portal.portal.database.db
        .updateTable('members')
        .set({ tak_team: 'Dark Green', tak_role: 'Medic' })
        .where('callsign', '=', 'Atak4x1')
        .execute();
      const token = await tokenFor(member);
      // The face's certificate is the portal CA's (built-in TLS): phones need the trust package.
      expect(token.trusted_by_phones).toBe(false);
      const basic: [string, string] = [token.username, token.token];

      const config = await callFace(face, CONFIG, { basic });
      expect(config.status).toBe(200);
      expect(config.headers['content-type']).toBe('text/plain;charset=UTF-8');
      expect(config.text).toMatch(
        /^<\?xml[^>]*\?><ns2:certificateConfig [^>]*><nameEntries>(<nameEntry name="[A-Z]+" value="[ -~]*"\/>){2}<\/nameEntries><\/ns2:certificateConfig>$/,
      );
      expect(config.text).toContain(`<nameEntry name="O" value="${DEPLOYMENT}"/>`);
      expect(config.text).toContain('<nameEntry name="OU" value="members"/>');
      expect(config.text).not.toContain('name="CN"');

      const device = await opensslCsr({
        subject: atakSubject('Atak4x1'),
        key: 'rsa:4096',
        digest: 'sha1',
      });
      const signed = await callFace(
        face,
        `${SIGN_LEGACY}?clientUid=ANDROID-0123456789abcdef&version=4.6.0.5+%28889eee29%29`,
        {
          basic,
          headers: { 'content-type': 'text/plain; charset=ISO-8859-1' },
          body: CSR_BODIES.atak(device.csrPem),
        },
      );
      expect(signed.status, signed.text).toBe(200);

      const p12File = path.join(workDir, 'enrolled.p12');
      await writeFile(p12File, signed.body);
      const info = await openssl([
        'pkcs12',
        '-in',
        p12File,
        '-passin',
        'pass:atakatak',
        '-nokeys',
        '-info',
      ]).catch(() =>
        openssl([
          'pkcs12',
          '-in',
          p12File,
          '-passin',
          'pass:atakatak',
          '-nokeys',
          '-info',
          '-legacy',
        ]),
      );
      const bags = info.split(/(?=Bag Attributes)/).filter((part) => part.includes('BEGIN'));
      const names = bags.map((bag) => /friendlyName: (\S+)/.exec(bag)?.[1]);
      expect(names).toEqual(['signedCert', 'ca0', 'ca1']);
      expect(info).not.toContain('PRIVATE KEY');
      // Java's keystore (ATAK reads it with Android's): three trusted certificates, one named
      // signedCert (the JDK lower-cases aliases on load; Android's keeps them).
      const listed = await keytoolListed(p12File, 'atakatak');
      if (listed !== undefined) {
        expect(listed).toContain('Your keystore contains 3 entries');
        expect(listed.match(/trustedCertEntry/g)).toHaveLength(3);
        expect(listed).toMatch(/^signedcert,/im);
      }
      const leafPem = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(
        bags[0] ?? '',
      )?.[0];
      expect(leafPem).toBeDefined();
      const leaf = leafPem ?? '';
      expect(samePublicKey(leaf, device)).toBe(true);
      expect(new X509Certificate(leaf).subject).toContain('CN=Atak4x1');
      await chainsToPublishedCa(leaf);
      // The CAs of the answer are the portal's chain: issuing CA, then root.
      const cas = bags
        .slice(1)
        .map((bag) => new X509Certificate(bag.slice(bag.indexOf('-----BEGIN'))));
      expect(cas.map((ca) => ca.subject)).toEqual([
        new X509Certificate(portal.portal.ca.issuingCertificatePem).subject,
        new X509Certificate(portal.portal.ca.rootCertificatePem).subject,
      ]);

      const recorded = await portal.portal.database.db
        .selectFrom('issued_certificates')
        .select(['client_uid', 'serial'])
        .where('callsign', '=', 'Atak4x1')
        .where('purpose', '=', 'tak-enroll')
        .execute();
      expect(recorded).toEqual([
        { client_uid: 'ANDROID-0123456789abcdef', serial: expect.any(String) as string },
      ]);

      const profile = await callFace(face, `${PROFILE}?clientUid=ANDROID-0123456789abcdef`, {
        basic,
      });
      expect(profile.status).toBe(200);
      const entries = unzipSync(new Uint8Array(profile.body));
      expect(Object.keys(entries)).toContain('MANIFEST/manifest.xml');
      const pref = Object.entries(entries)
        .filter(([name]) => name.endsWith('.pref'))
        .map(([, data]) => strFromU8(data))
        .join('\n');
      expect(pref).toContain(
        '<entry key="locationCallsign" class="class java.lang.String">Atak4x1</entry>',
      );
      expect(pref).toContain(
        '<entry key="locationTeam" class="class java.lang.String">Dark Green</entry>',
      );
      expect(pref).toContain(
        '<entry key="atakRoleType" class="class java.lang.String">Medic</entry>',
      );

      expect(await asDevice(leaf, device)).toBe(200);
    }, 60_000);
  });

  describe('signClient/v2 as the other clients send it', () => {
    const ACCEPTS: [string, string | undefined, 'json' | 'xml' | 'json-as-text'][] = [
      ['none', undefined, 'json'],
      ['*/*', '*/*', 'json'],
      ['application/json', 'application/json', 'json'],
      ['a q-list', 'application/json, application/xml;q=0.9, */*;q=0.8', 'json'],
      ['application/xml', 'application/xml', 'xml'],
      ['text/plain', 'text/plain', 'json-as-text'],
    ];
    const BODIES = Object.keys(CSR_BODIES) as (keyof typeof CSR_BODIES)[];
    // Every Accept once, every body form across them, both spellings of clientUid.
    const cases = ACCEPTS.map(
      ([name, accept, format], index) =>
        [
          `Accept ${name}: answers ${format}, CSR body as ${BODIES[index % BODIES.length] ?? 'pem'}`,
          accept,
          format,
          BODIES[index % BODIES.length] ?? 'pem',
          index % 2 === 0 ? 'clientUid' : 'clientUID',
          index,
        ] as const,
    );

    it.each(cases)(
      '%s',
      async (_label, accept, format, body, uidName, index) => {
        const callsign = `V2x${index}`;
        const member = await portal.addMember(callsign);
        const token = await tokenFor(member);
        const device = await opensslCsr({ subject: `/O=${DEPLOYMENT}/OU=members/CN=${callsign}` });
        const response = await callFace(
          face,
          `${SIGN_V2}?${uidName}=${encodeURIComponent(`${callsign} (ETL)`)}&version=3`,
          {
            basic: [callsign, token.token],
            headers: {
              'content-type': 'text/plain;charset=UTF-8',
              ...(accept === undefined ? {} : { accept }),
            },
            body: CSR_BODIES[body](device.csrPem),
          },
        );
        expect(response.status, response.text).toBe(200);
        let signedCert: string;
        let cas: string[];
        if (format === 'xml') {
          expect(response.headers['content-type']).toBe('application/xml');
          const match =
            /^<\?xml version="1.0" encoding="UTF-8"\?><enrollment><signedCert>([^<]+)<\/signedCert>((?:<ca>[^<]+<\/ca>)+)<\/enrollment>$/.exec(
              response.text,
            );
          expect(match, response.text).not.toBeNull();
          signedCert = match?.[1] ?? '';
          cas = [...(match?.[2] ?? '').matchAll(/<ca>([^<]+)<\/ca>/g)].map((m) => m[1] ?? '');
        } else {
          // Exactly this type: node-tak compares it literally.
          expect(response.headers['content-type']).toBe(
            format === 'json' ? 'application/json' : 'text/plain;charset=UTF-8',
          );
          const json = JSON.parse(response.text) as Record<string, string>;
          expect(Object.keys(json)).toEqual(['signedCert', 'ca0', 'ca1']);
          signedCert = json.signedCert ?? '';
          cas = [json.ca0 ?? '', json.ca1 ?? ''];
        }
        const leaf = new X509Certificate(derOfLines(signedCert));
        expect(cas.map((ca) => new X509Certificate(derOfLines(ca)).subject)).toEqual([
          new X509Certificate(portal.portal.ca.issuingCertificatePem).subject,
          new X509Certificate(portal.portal.ca.rootCertificatePem).subject,
        ]);
        expect(samePublicKey(leaf.toString(), device)).toBe(true);
        await chainsToPublishedCa(leaf.toString());
        const recorded = await portal.portal.database.db
          .selectFrom('issued_certificates')
          .select('client_uid')
          .where('callsign', '=', callsign)
          .where('purpose', '=', 'tak-enroll')
          .executeTakeFirstOrThrow();
        expect(recorded.client_uid).toBe(`${callsign} (ETL)`);
        expect(await asDevice(leaf.toString(), device)).toBe(200);
      },
      30_000,
    );

    it('refuses an Accept it cannot answer with 406, the token unspent', async () => {
      const member = await portal.addMember('Accept1');
      const token = await tokenFor(member);
      const device = await opensslCsr({ subject: '/CN=Accept1', key: 'ec' });
      const basic: [string, string] = ['Accept1', token.token];
      const refused = await callFace(face, SIGN_V2, {
        basic,
        headers: { accept: 'image/png' },
        body: device.csrPem,
      });
      expect(refused.status).toBe(406);
      const signed = await callFace(face, SIGN_V2, { basic, body: device.csrPem });
      expect(signed.status, signed.text).toBe(200);
    });

    it('adds TAK Server’s channels EKU when the client sends its version, and back-dates 12 hours', async () => {
      /** `openssl x509 -text` of the certificate a v2 enrollment answers. */
      async function enrolledText(callsign: string, query: string): Promise<string> {
        const member = await portal.addMember(callsign);
        const token = await tokenFor(member);
        const device = await opensslCsr({ subject: `/CN=${callsign}` });
        const signed = await callFace(face, `${SIGN_V2}?${query}`, {
          basic: [callsign, token.token],
          body: device.csrPem,
        });
        expect(signed.status, signed.text).toBe(200);
        const der = derOfLines((JSON.parse(signed.text) as { signedCert: string }).signedCert);
        const file = path.join(workDir, `${callsign}.pem`);
        await writeFile(file, new X509Certificate(der).toString());
        return openssl(['x509', '-in', file, '-noout', '-text']);
      }
      const enrolledAt = Date.now();
      const withVersion = await enrolledText('Channels1', 'clientUid=ANDROID-1&version=5.5.0.3');
      expect(withVersion).toMatch(
        /Extended Key Usage: \s+TLS Web Client Authentication, challengePassword\n/,
      );
      const notBefore = Date.parse(/Not Before: (.+)\n/.exec(withVersion)?.[1] ?? '');
      expect(Math.abs(notBefore - (enrolledAt - 720 * 60_000))).toBeLessThan(10_000);
      const withoutVersion = await enrolledText('Channels2', 'clientUid=ANDROID-2');
      expect(withoutVersion).toMatch(/Extended Key Usage: \s+TLS Web Client Authentication\n/);
    });
  });

  describe('the face', () => {
    it('answers 401 with a Basic challenge without credentials or with wrong ones', async () => {
      const none = await callFace(face, CONFIG);
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic realm="/);
      const wrong = await callFace(face, CONFIG, { basic: ['Station1', 'ABCDEFGHJKLM'] });
      expect(wrong.status).toBe(401);
      expect(wrong.headers['www-authenticate']).toMatch(/^Basic realm="/);
    });

    it('serves the enrollment paths only', async () => {
      const member = await portal.addMember('Paths1');
      const token = await tokenFor(member);
      const basic: [string, string] = ['Paths1', token.token];
      for (const other of [apiPaths.checkAuthValidUser, '/ca/ca.pem', '/', '/Marti/api/version']) {
        expect((await callFace(face, other, { basic })).status, other).toBe(404);
      }
    });

    it('answers the profile with 204 before the token has signed anything', async () => {
      const member = await portal.addMember('Early1');
      const token = await tokenFor(member);
      const early = await callFace(face, PROFILE, { basic: ['Early1', token.token] });
      expect(early.status).toBe(204);
    });
  });

  describe('the tokens', () => {
    async function enroll(callsign: string, password: string, subject = `/CN=${callsign}`) {
      const device = await opensslCsr({ subject, key: 'ec' });
      const response = await callFace(face, SIGN_V2, {
        basic: [callsign, password],
        body: device.csrPem,
      });
      return { response, device };
    }

    it('answer a 12-character code for 15 minutes, stored hashed, with the ATAK link and the iTAK QR', async () => {
      const member = await portal.addMember('Shape1');
      const before = Date.now();
      const token = await tokenFor(member);
      expect(token.username).toBe('Shape1');
      expect(token.token).toMatch(/^[A-Z0-9]{12}$/);
      const ttl = Date.parse(token.expires_at) - before;
      expect(ttl).toBeGreaterThan(14 * 60_000);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);
      expect(token.host).toBe(portal.config.takHost);
      expect(token.port).toBe(face.port);
      expect(token.atak_uri).toBe(
        `tak://com.atakmap.app/enroll?host=${portal.config.takHost}&username=Shape1&token=${token.token}`,
      );
      expect(token.itak_qr).toBe(`${DEPLOYMENT},${portal.config.takHost},8089,ssl`);
      const stored = await portal.portal.database.db
        .selectFrom('tak_enrollment_tokens')
        .selectAll()
        .where('callsign', '=', 'Shape1')
        .executeTakeFirstOrThrow();
      expect(stored.token_hash).not.toContain(token.token);
      expect(JSON.stringify(stored)).not.toContain(token.token);
    });

    it('are single use', async () => {
      const member = await portal.addMember('Once1');
      const token = await tokenFor(member);
      expect((await enroll('Once1', token.token)).response.status).toBe(200);
      const again = await enroll('Once1', token.token);
      expect(again.response.status).toBe(401);
      expect((await callFace(face, CONFIG, { basic: ['Once1', token.token] })).status).toBe(401);
    });

    it('expire', async () => {
      const member = await portal.addMember('Late1');
      const token = await tokenFor(member);
      await portal.portal.database.db
        .updateTable('tak_enrollment_tokens')
        .set({ expires_at: Date.now() - 1 })
        .where('callsign', '=', 'Late1')
        .execute();
      expect((await enroll('Late1', token.token)).response.status).toBe(401);
      expect(await certificatesOf('Late1')).toBe(1);
    });

    it('a second token voids the first', async () => {
      const member = await portal.addMember('Twice1');
      const first = await tokenFor(member);
      const second = await tokenFor(member);
      expect((await enroll('Twice1', first.token)).response.status).toBe(401);
      expect((await enroll('Twice1', second.token)).response.status).toBe(200);
    });

    it('need the right user name (any case)', async () => {
      const member = await portal.addMember('Name1');
      await portal.addMember('Name2');
      const token = await tokenFor(member);
      expect((await enroll('Name2', token.token)).response.status).toBe(401);
      expect((await enroll('name1', token.token, '/CN=Name1')).response.status).toBe(200);
    });

    it('refuse a CSR with another CN (400) and stay unspent', async () => {
      const member = await portal.addMember('Cn1');
      await portal.addMember('Cn2');
      const token = await tokenFor(member);
      const other = await enroll('Cn1', token.token, '/CN=Cn2');
      expect(other.response.status).toBe(400);
      expect(other.response.text).toContain('CN');
      const none = await enroll('Cn1', token.token, '/O=portal');
      expect(none.response.status).toBe(400);
      expect(await certificatesOf('Cn2')).toBe(1);
      expect((await enroll('Cn1', token.token)).response.status).toBe(200);
    });

    it('refuse a weak key (400) and stay unspent', async () => {
      const member = await portal.addMember('Weak1');
      const token = await tokenFor(member);
      const device = await opensslCsr({ subject: '/CN=Weak1', key: 'rsa:1024' });
      const weak = await callFace(face, SIGN_V2, {
        basic: ['Weak1', token.token],
        body: device.csrPem,
      });
      expect(weak.status).toBe(400);
      expect((await enroll('Weak1', token.token)).response.status).toBe(200);
    });

    it('refuse a body that is no CSR (400) and stay unspent', async () => {
      const member = await portal.addMember('Junk1');
      const token = await tokenFor(member);
      const junk = await callFace(face, SIGN_V2, {
        basic: ['Junk1', token.token],
        body: 'not a request',
      });
      expect(junk.status).toBe(400);
      expect((await enroll('Junk1', token.token)).response.status).toBe(200);
    });

    it('refuse a device id or version with control, bidi or invisible characters (400) and stay unspent', async () => {
      const member = await portal.addMember('Uid1');
      const token = await tokenFor(member);
      const device = await opensslCsr({ subject: '/CN=Uid1', key: 'ec' });
      // C1 (NEL), a bidi override, a zero-width space, a line separator; and an escape.
      for (const query of [
        'clientUid=ANDROID-%C2%851',
        'clientUid=ANDROID-%E2%80%AEfedcba',
        'clientUID=ANDROID-%E2%80%8B1',
        'clientUid=ANDROID-1&version=4.10%E2%80%A8',
        'clientUid=ANDROID-1&version=4.10%1b%5b2J',
      ]) {
        const refused = await callFace(face, `${SIGN_V2}?${query}`, {
          basic: ['Uid1', token.token],
          body: device.csrPem,
        });
        expect(refused.status, query).toBe(400);
        expect(refused.text).toContain('no control characters');
      }
      expect(await certificatesOf('Uid1')).toBe(1);
      expect((await enroll('Uid1', token.token)).response.status).toBe(200);
    });

    it('are not given to a pending or revoked member', async () => {
      const pendingJwt = await portal.addPendingEnrollee('Wait1', 'WAIT2345');
      const byJwt = await portal.api('public', 'POST', takPaths.enrollmentToken, {
        bearer: pendingJwt,
      });
      expect(byJwt.status).toBe(403);
      expect((await stationToken('Wait1')).status).toBe(409);

      await portal.addMember('Gone1');
      await revokeMember(portal.portal.database.db, portal.portal.certificates, {
        callsign: 'Gone1',
        actor: 'test',
        clientAddress: null,
      });
      expect((await stationToken('Gone1')).status).toBe(409);
      expect((await stationToken('Nobody1')).status).toBe(404);
    });

    it('are given to an approved member by their JWT, and by an admin for a member', async () => {
      await portal.addMember('Jwt1');
      const jwt = await portal.portal.tokens.issue({
        scope: 'member',
        subject: 'Jwt1',
        ttlMs: 60_000,
      });
      const byJwt = await portal.api('public', 'POST', takPaths.enrollmentToken, {
        bearer: jwt.jwt,
      });
      expect(byJwt.status, byJwt.text).toBe(200);
      const station = await stationToken('jwt1');
      expect(station.status).toBe(200);
      const token = takEnrollmentTokenResponseSchema.parse(station.json());
      expect(token.username).toBe('Jwt1');
      // The station's token voided the member's own.
      const own = takEnrollmentTokenResponseSchema.parse(byJwt.json());
      expect((await enroll('Jwt1', own.token)).response.status).toBe(401);
      expect((await enroll('Jwt1', token.token)).response.status).toBe(200);
    });

    it('stop working when the member is revoked, and so does the enrolled certificate', async () => {
      const member = await portal.addMember('Cut1');
      const first = await tokenFor(member);
      const { response, device } = await enroll('Cut1', first.token);
      expect(response.status).toBe(200);
      const leaf = new X509Certificate(
        derOfLines((JSON.parse(response.text) as { signedCert: string }).signedCert),
      ).toString();
      expect(await asDevice(leaf, device)).toBe(200);
      const pending = await tokenFor(member);

      await revokeMember(portal.portal.database.db, portal.portal.certificates, {
        callsign: 'Cut1',
        actor: 'test',
        clientAddress: null,
      });

      expect(await asDevice(leaf, device)).toBe(403);
      expect((await enroll('Cut1', pending.token)).response.status).toBe(401);
    });

    it('two devices racing with one token: exactly one certificate', async () => {
      const member = await portal.addMember('Race1');
      const token = await tokenFor(member);
      const results = await Promise.all([
        enroll('Race1', token.token),
        enroll('Race1', token.token),
        enroll('Race1', token.token),
      ]);
      const statuses = results.map((result) => result.response.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(await certificatesOf('Race1', 'tak-enroll')).toBe(1);
    });

    it('guessing is throttled: 429 past the failure budget, even for the right token', async () => {
      const member = await portal.addMember('Guess1');
      const token = await tokenFor(member);
      let status = 0;
      for (let attempt = 0; attempt < 45 && status !== 429; attempt++) {
        status = (await callFace(face, CONFIG, { basic: ['Guess1', `WRONG${attempt}ABCDE`] }))
          .status;
      }
      expect(status).toBe(429);
      expect((await callFace(face, CONFIG, { basic: ['Guess1', token.token] })).status).toBe(429);
    });
  });

  describe('the trust package', () => {
    it('holds the connection and the truststore, and no private key in any entry', async () => {
      const member = await portal.addMember('Trust1');
      const response = await portal.api('mtls', 'GET', takPaths.trustPackage, { key: member });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/zip');
      const entries = unzipSync(new Uint8Array(response.body));
      const names = Object.keys(entries).sort();
      expect(names).toContain('MANIFEST/manifest.xml');
      const pref = strFromU8(entries['server.pref'] ?? new Uint8Array());
      expect(pref).toContain(
        `<entry key="connectString0" class="class java.lang.String">${portal.config.takHost}:8089:ssl</entry>`,
      );
      expect(pref).toContain(
        '<entry key="enrollForCertificateWithTrust0" class="class java.lang.Boolean">true</entry>',
      );
      expect(pref).toContain('<entry key="useAuth0" class="class java.lang.Boolean">true</entry>');
      expect(pref).toContain(
        '<entry key="username0" class="class java.lang.String">Trust1</entry>',
      );
      expect(pref).not.toContain('certificateLocation');
      const password = /key="caPassword0"[^>]*>([^<]+)</.exec(pref)?.[1] ?? '';
      for (const [name, data] of Object.entries(entries)) {
        const text = Buffer.from(data).toString('latin1');
        expect(text, name).not.toContain('PRIVATE KEY');
        if (name.endsWith('.p12')) {
          const file = path.join(workDir, 'trust.p12');
          await writeFile(file, data);
          const keys = await openssl([
            'pkcs12',
            '-in',
            file,
            '-passin',
            `pass:${password}`,
            '-nocerts',
            '-nodes',
          ]);
          expect(keys, name).not.toContain('PRIVATE KEY');
          const certs = await openssl([
            'pkcs12',
            '-in',
            file,
            '-passin',
            `pass:${password}`,
            '-nokeys',
          ]);
          expect(certs.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
        }
      }
      expect(names.some((name) => name.endsWith('.p12'))).toBe(true);
    });
  });

  async function certificatesOf(callsign: string, purpose?: string): Promise<number> {
    let query = portal.portal.database.db
      .selectFrom('issued_certificates')
      .select('serial')
      .where('callsign', '=', callsign);
    if (purpose !== undefined) query = query.where('purpose', '=', purpose as 'tak-enroll');
    return (await query.execute()).length;
  }
});
