import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  caExpiryResponseSchema,
  caPaths,
  crlDerPathOf,
  keyListResponseSchema,
} from '@callsign/contract';
import { certificatesIn } from '../../src/ca/authority.js';
import { prepareAdoption } from '../../src/ca/adopt.js';
import { writeCaFiles } from '../../src/ca/ca-files.js';
import { runOpenssl, selfSignedCertificate } from '../../src/ca/openssl-cli.testing.js';
import { testEngines, type ScratchDatabase } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import { findCertificateBySerial } from '../../src/modules/certificates/repository.js';
import { caRollover, RolloverUsageError } from '../../src/cli/ca-rollover.js';
import { RolloverRefusedError } from '../../src/modules/certificates/rollover.js';
import { ISSUERS_MAX_AGE_MS } from '../../src/modules/certificates/service.js';
import { scrapeProbes } from '../../src/server.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { Scrape } from '../support/prometheus-text.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { databaseEnvOf } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';

// The issuing CA's rollover (docs/operations.md) through the services and the
// API, on every engine, with two instances on one PostgreSQL (on SQLite, one instance): begin makes issuing CA 2 under the same root; new keys come
// from it on either instance; both issuing CAs are trusted (ca.pem, packages); each CA's CRL and
// OCSP answer for its own keys; finish refuses while old keys are live, retires the old CA once
// they are renewed, or with force revokes them. The JVM listener's side is ca-rollover-jvm.test.ts.

const CLI = { callsign: 'cli', clientAddress: null };

let work: string;

async function file(name: string, content: string): Promise<string> {
  const target = path.join(work, name);
  await writeFile(target, content);
  return target;
}

/** `openssl verify -crl_check` of a leaf against the CAs and the CRL given: "OK" or the error. */
async function verifyWithCrl(leafPem: string, casPem: string, crlPem: string): Promise<string> {
  const result = await runOpenssl([
    'verify',
    '-crl_check',
    '-CAfile',
    await file('cas.pem', casPem),
    '-CRLfile',
    await file('crl.pem', crlPem),
    await file('leaf.pem', leafPem),
  ]);
  return `${result.stdout}${result.stderr}`;
}

/** The CNs /ca/ca.pem serves once it holds `count` certificates, polling for at most `ms`. */
async function servedWithin(portal: InjectPortal, ms: number, count: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const served = certificatesIn((await portal.api('public', 'GET', caPaths.chain)).text);
    if (served.length === count || Date.now() > deadline) {
      return served.map((c) => /CN=([^,]+)$/.exec(c.subject)?.[1] ?? c.subject);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function issuerCn(certificatePem: string): string {
  return /CN=([^\n]+)/.exec(new X509Certificate(certificatePem).issuer)?.[1] ?? '';
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'ca-rollover-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe.each(testEngines())('CA rollover on $name', (engine) => {
  let scratch: ScratchDatabase;
  let a: InjectPortal;
  let b: InjectPortal;
  let boss: MemberKey;
  const old: Record<string, MemberKey> = {};
  const renewed: MemberKey[] = [];

  /** Run after the suite, last first: what beforeAll made, however far it got. */
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    const made = scratch;
    cleanups.push(() => made.drop());
    const env = databaseEnvOf(scratch);
    a = await openInjectPortal({ env });
    cleanups.push(() => a.destroy());
    // The second instance: its own data directory with the same CA files (the run's test CA,
    // as a mounted secret would be), the same database.
    b = engine.name === 'sqlite' ? a : await openInjectPortal({ env });
    if (b !== a) cleanups.push(() => b.destroy());
    // As the service does at its start: before any rollover.
    b.portal.metrics.watch(scrapeProbes(b.portal));
    boss = await a.addMember('Boss1', { roles: ['admin'] });
    for (const callsign of ['Alder1', 'Birch2', 'Cedar3'])
      old[callsign] = await a.addMember(callsign);
    old.Cedar3b = await a.issueKey('Cedar3');
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const adminCa = async (portal: InjectPortal) => {
    const response = await portal.api('mtls', 'GET', apiPaths.caExpiry, { key: boss });
    expect(response.status, response.text).toBe(200);
    return caExpiryResponseSchema.parse(response.json());
  };

  it('before any rollover: one issuing CA, nothing to do, no banner', async () => {
    const ca = await adminCa(a);
    expect(ca.rollover).toMatchObject({
      state: 'none',
      generation: 1,
      can_roll_over: true,
      previous: null,
      members_on_previous: 0,
      next: 'nothing',
    });
    const keys = await a.api('mtls', 'GET', apiPaths.myKeys, { key: old.Alder1 });
    expect(keyListResponseSchema.parse(keys.json()).renew_ca_by).toBeNull();
    expect(certificatesIn((await a.api('public', 'GET', caPaths.chain)).text)).toHaveLength(2);
  });

  it('finish with no rollover under way is refused, nothing written', async () => {
    const before = await snapshotTables(a.portal.database.db);
    await expect(a.portal.services.caRollover.finish(CLI)).rejects.toThrow(
      /no rollover is under way/,
    );
    expect(await snapshotTables(a.portal.database.db)).toBe(before);
  });

  it('begin: issuing CA 2 under the same root signs new keys on both instances; both CAs trusted', async () => {
    const begun = await a.portal.services.caRollover.begin(CLI);
    expect(begun.generation).toBe(2);
    expect(begun.subject).toMatch(/CN=Callsign Portal Issuing CA 2/);

    // The other instance's next mint reads the state first: its key comes from CA 2.
    const fresh = await b.addMember('Dogwood4');
    expect(issuerCn(fresh.certificatePem)).toBe('Callsign Portal Issuing CA 2');
    expect((await findCertificateBySerial(b.portal.database.db, fresh.serial))?.caGeneration).toBe(
      2,
    );
    const root = new X509Certificate(a.portal.ca.rootCertificatePem);
    const issuing2 = new X509Certificate(b.portal.ca.issuingCertificatePem);
    expect(issuing2.checkIssued(root) && issuing2.verify(root.publicKey)).toBe(true);

    // ca.pem on both: both issuing CAs, the new one first, then the root.
    for (const portal of [a, b]) {
      const served = certificatesIn((await portal.api('public', 'GET', caPaths.chain)).text);
      expect(served.map((c) => /CN=([^,]+)$/.exec(c.subject)?.[1])).toEqual([
        'Callsign Portal Issuing CA 2',
        'Callsign Portal Issuing CA',
        'Callsign Portal Root CA',
      ]);
    }
    // Old keys and new keys are accepted by both instances' mTLS face.
    for (const portal of [a, b]) {
      for (const key of [old.Alder1, fresh]) {
        const response = await portal.api('mtls', 'GET', apiPaths.myKeys, { key });
        expect(response.status, response.text).toBe(200);
      }
    }
    const events = await listRecentAuditEvents(a.portal.database.db, 5);
    expect(events.find((event) => event.action === 'ca.rollover-begin')).toMatchObject({
      actor: 'cli',
      outcome: 'success',
    });
  });

  it('the CA expiry metric follows the issuing CA new keys come from', async () => {
    const scrape = await Scrape.parse(await b.portal.metrics.text());
    const expiry = scrape.value('callsign_portal_ca_certificate_expiry_timestamp_seconds', {
      ca: 'issuing',
    });
    const issuing2 = new X509Certificate(b.portal.ca.issuingCertificatePem);
    expect(issuing2.subject).toContain('Issuing CA 2');
    expect(expiry).toBe(new Date(issuing2.validTo).getTime() / 1000);
  });

  it('begin again while one is under way is refused with what to do, nothing written', async () => {
    const before = await snapshotTables(a.portal.database.db);
    await expect(b.portal.services.caRollover.begin(CLI)).rejects.toThrow(
      /a rollover is under way already: issuing CA 2 .* finish it first/,
    );
    expect(await snapshotTables(a.portal.database.db)).toBe(before);
  });

  it('a TAK package made during the overlap trusts both issuing CAs', async () => {
    const built = await b.portal.services.takPackages.build('Alder1', {
      callsign: 'Alder1',
      clientAddress: null,
    });
    expect(built.packages.length).toBeGreaterThan(0);
    const trust = await a.portal.services.takEnrollment.caCertificates();
    const names = trust.map((der) => new X509Certificate(der).subject);
    expect(names.filter((subject) => subject.includes('Issuing CA'))).toHaveLength(2);
  });

  it('ca rollover status says where it stands and what next; a wrong step is a usage error', async () => {
    expect(await caRollover(b.portal, ['status'])).toMatch(
      /^Issuing CA 2; rollover: overlap \(begun .*, renew by \d{4}-\d{2}-\d{2}\); 4 member\(s\) and 5 key\(s\) still on issuing CA 1\. Next: renew\.\n$/,
    );
    await expect(caRollover(b.portal, ['sideways'])).rejects.toThrow(RolloverUsageError);
    await expect(caRollover(b.portal, ['begin', '--renew-by', 'soon'])).rejects.toThrow(
      /--renew-by takes a date as YYYY-MM-DD, not "soon"/,
    );
  });

  it('the banner and the counts know who is on the old CA', async () => {
    const ca = await adminCa(b);
    expect(ca.rollover).toMatchObject({
      state: 'overlap',
      generation: 2,
      members_on_previous: 4,
      keys_on_previous: 5,
      next: 'renew',
    });
    expect(ca.rollover.previous?.generation).toBe(1);
    expect(ca.rollover.renew_by).not.toBeNull();
    const alder = await a.api('mtls', 'GET', apiPaths.myKeys, { key: old.Alder1 });
    expect(keyListResponseSchema.parse(alder.json()).renew_ca_by).toBe(ca.rollover.renew_by);
    const dogwoodKey = await a.issueKey('Dogwood4');
    const dogwood = await a.api('mtls', 'GET', apiPaths.myKeys, { key: dogwoodKey });
    expect(keyListResponseSchema.parse(dogwood.json()).renew_ca_by).toBeNull();
  });

  it("revocation works for either CA's keys: each CA's own CRL (openssl -crl_check) and OCSP", async () => {
    const oldKey = old.Cedar3b as MemberKey;
    const newKey = await a.issueKey('Cedar3');
    expect(issuerCn(newKey.certificatePem)).toBe('Callsign Portal Issuing CA 2');
    const spare = await a.issueKey('Cedar3');
    for (const key of [oldKey, spare]) {
      const revoked = await a.api('mtls', 'DELETE', apiPaths.myKey(key.serial), { key: newKey });
      expect(revoked.status, revoked.text).toBe(200);
    }
    const cas = (await a.api('public', 'GET', caPaths.chain)).text;
    // Each key names its own CA's CRL; each CRL is signed by its CA and lists its keys only.
    const crl1 = await b.api('public', 'GET', caPaths.crlDer);
    const crl2 = await b.api('public', 'GET', crlDerPathOf(2));
    expect([crl1.status, crl2.status]).toEqual([200, 200]);
    const pemOf = (der: Buffer) =>
      `-----BEGIN X509 CRL-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END X509 CRL-----\n`;
    const both = (await b.api('public', 'GET', caPaths.crlPem)).text;
    expect(both.match(/BEGIN X509 CRL/g)).toHaveLength(2);
    for (const [key, crl, verdict] of [
      [oldKey, crl1.body, /certificate revoked/],
      [old.Alder1 as MemberKey, crl1.body, /: OK/],
      [spare, crl2.body, /certificate revoked/],
      [newKey, crl2.body, /: OK/],
    ] as const) {
      expect(await verifyWithCrl(key.certificatePem, cas, pemOf(crl))).toMatch(verdict);
      // The bundle at /ca/crl.pem serves a relying party that loads one file for both.
      expect(await verifyWithCrl(key.certificatePem, cas, both)).toMatch(verdict);
    }
    // OCSP, as the responder answers /ca/ocsp, each key under its own issuer.
    expect((await b.portal.certificates.askOcsp(oldKey.serial)).status).toBe('revoked');
    expect((await b.portal.certificates.askOcsp(spare.serial)).status).toBe('revoked');
    expect((await b.portal.certificates.askOcsp(old.Alder1!.serial)).status).toBe('good');
    expect((await b.portal.certificates.askOcsp(newKey.serial)).status).toBe('good');
    // A revoked key is refused by the mTLS face, the other CA's too.
    for (const key of [oldKey, spare]) {
      const refused = await b.api('mtls', 'GET', apiPaths.myKeys, { key });
      expect(refused.status).toBe(403);
    }
  });

  it('finish refuses while live keys depend on the old CA, says how many and who, writes nothing', async () => {
    const before = await snapshotTables(a.portal.database.db);
    const attempt = b.portal.services.caRollover.finish(CLI);
    await expect(attempt).rejects.toThrow(RolloverRefusedError);
    await expect(attempt).rejects.toThrow(
      // Cedar3 renewed (a key of CA 2 of the same kind): not counted.
      /^3 unexpired, unrevoked key\(s\) still depend on the old issuing CA \(Alder1 \(browser\), Birch2 \(browser\), Boss1 \(browser\)\)/,
    );
    expect(await snapshotTables(a.portal.database.db)).toBe(before);
  });

  it('after the last old key is renewed, finish retires the old CA and nobody who renewed loses access', async () => {
    for (const callsign of ['Alder1', 'Birch2', 'Boss1']) renewed.push(await b.issueKey(callsign));
    const cedar = await a.issueKey('Cedar3');
    renewed.push(cedar);
    boss = renewed[2] as MemberKey;
    expect((await adminCa(a)).rollover).toMatchObject({ keys_on_previous: 0, next: 'finish' });

    const finished = await a.portal.services.caRollover.finish(CLI);
    expect(finished).toMatchObject({ generation: 2, revokedRenewed: 4, revokedForced: [] });

    for (const portal of [a, b]) {
      // The other instance re-reads the CA state at most ISSUERS_MAX_AGE_MS after its last look.
      const served = await servedWithin(portal, ISSUERS_MAX_AGE_MS + 1_000, 2);
      expect(served).toEqual(['Callsign Portal Issuing CA 2', 'Callsign Portal Root CA']);
      for (const key of renewed) {
        const response = await portal.api('mtls', 'GET', apiPaths.myKeys, { key });
        expect(response.status, response.text).toBe(200);
        expect(keyListResponseSchema.parse(response.json()).renew_ca_by).toBeNull();
      }
      // The renewed old keys are revoked as superseded, everywhere.
      const refused = await portal.api('mtls', 'GET', apiPaths.myKeys, { key: old.Alder1 });
      expect(refused.status).toBe(403);
    }
    // The old CA's CRL stays published while keys it issued could still be valid.
    const crl1 = await a.api('public', 'GET', caPaths.crlDer);
    expect(crl1.status).toBe(200);
    expect((await a.portal.certificates.askOcsp(old.Alder1!.serial)).status).toBe('revoked');
    const trust = await b.portal.services.takEnrollment.caCertificates();
    expect(
      trust.map((der) => new X509Certificate(der).subject).filter((s) => s.includes('Issuing CA')),
    ).toEqual([expect.stringContaining('Issuing CA 2')]);
    expect((await adminCa(b)).rollover).toMatchObject({
      state: 'none',
      generation: 2,
      next: 'nothing',
    });
    const events = await listRecentAuditEvents(a.portal.database.db, 5);
    expect(events.find((event) => event.action === 'ca.rollover-finish')?.detail).toMatchObject({
      generation: 2,
      retired: 1,
      revokedRenewed: 4,
    });
  });

  it('two instances beginning at once: exactly one rollover, the other refused', async () => {
    const results = await Promise.allSettled([
      a.portal.services.caRollover.begin(CLI),
      b.portal.services.caRollover.begin(CLI),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(RolloverRefusedError);
    expect(String(refused?.reason)).toMatch(/under way already|at the same moment/);
  });

  it('finish --force revokes the keys still on the old CA in one audited step', async () => {
    const stay = await a.addMember('Elm5');
    const renewedBoss = await a.issueKey('Boss1');
    boss = renewedBoss;
    const finished = await b.portal.services.caRollover.finish(CLI, { force: true });
    expect(finished.generation).toBe(3);
    expect(finished.revokedForced.map((key) => key.callsign).sort()).toEqual(
      expect.arrayContaining(['Alder1', 'Birch2', 'Cedar3', 'Dogwood4']),
    );
    // Alder1's key of CA 2, not renewed under CA 3: revoked.
    const refused = await a.api('mtls', 'GET', apiPaths.myKeys, { key: renewed[0] as MemberKey });
    expect(refused.status).toBe(403);
    const kept = await a.api('mtls', 'GET', apiPaths.myKeys, { key: stay });
    expect(kept.status, kept.text).toBe(200);
    const events = await listRecentAuditEvents(a.portal.database.db, 3);
    expect(events.find((event) => event.action === 'ca.rollover-finish')?.detail).toMatchObject({
      force: true,
    });
  });
});

describe('CA rollover where the adopted CA signs members itself', () => {
  let portal: InjectPortal;
  let opened = false;

  beforeAll(async () => {
    const dataDir = path.join(work, 'adopted-data');
    await mkdir(dataDir, { recursive: true });
    const certificate = await selfSignedCertificate(work, 'adopted', {
      rsa: true,
      days: 365,
      subject: '/O=Unit/CN=Unit TAK CA',
      extensions: ['basicConstraints=critical,CA:true', 'keyUsage=critical,keyCertSign,cRLSign'],
    });
    const adoption = await prepareAdoption({
      certificatePem: await readFile(certificate, 'utf8'),
      keyPem: await readFile(path.join(work, 'adopted.key'), 'utf8'),
      chainPem: undefined,
      passphrase: undefined,
      issueDirectly: true,
      storePassphrase: undefined,
      organization: 'portal.example.org',
      now: new Date(),
    });
    await writeCaFiles(path.join(dataDir, 'ca'), adoption.material);
    portal = await openInjectPortal({ env: { PORTAL_DATA_DIR: dataDir } });
    opened = true;
  });

  afterAll(async () => {
    if (opened) await portal.destroy();
  });

  it('begin is refused: there is no root key to sign a second issuing CA with; nothing written', async () => {
    const before = await snapshotTables(portal.portal.database.db);
    await expect(portal.portal.services.caRollover.begin(CLI)).rejects.toThrow(
      /issues keys with the adopted CA itself .* no root key to sign a second issuing CA/,
    );
    expect(await snapshotTables(portal.portal.database.db)).toBe(before);
    expect((await portal.portal.services.caRollover.status()).canRollOver).toBe(false);
  });
});
