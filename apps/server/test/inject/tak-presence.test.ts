import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  apiPaths,
  caPaths,
  keyListResponseSchema,
  membersListResponseSchema,
  takReadinessResponseSchema,
} from '@callsign/contract';
import { ocspQuestion, readOcspAnswer } from '../../src/ca/ocsp-check.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { recordRevocationFetch } from '../../src/modules/certificates/repository.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

// Presence (docs/operations.md#tak-readiness): an OCSP request or CRL fetch is evidence that a TAK
// Server checked a key; the key lists and the TAK readiness card show it, with warnings before
// the CRL cliff. Only sightings from a TAK Server count: an address of PORTAL_TAK_SERVER_ADDRESSES
// or, without it, one that fetched the CRL.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const TAK_SERVER = '10.0.0.5';

describe.each(testEngines())('TAK presence on $name', (engine) => {
  let portal: InjectPortal;
  let boss: MemberKey;
  let clock = Date.now();

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({
      env: { ...env, PORTAL_TAK_SERVER_ADDRESSES: `${TAK_SERVER}, 192.0.2.0/28` },
      now: () => new Date(clock),
    });
    boss = await portal.addMember('Boss7', { roles: ['admin'] });
    return portal;
  });

  beforeAll(() => {
    clock = Date.now();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const fromTakServer = { 'x-forwarded-for': TAK_SERVER };

  async function askOcsp(serial: string, from = TAK_SERVER) {
    const question = ocspQuestion(portal.portal.ca.issuingCertificatePem, serial);
    const answer = await portal.api('public', 'POST', caPaths.ocsp, {
      raw: question.der,
      contentType: 'application/ocsp-request',
      headers: { 'x-forwarded-for': from },
    });
    expect(answer.status).toBe(200);
    return readOcspAnswer(answer.body, question, portal.portal.ca.issuingCertificatePem);
  }

  async function readiness() {
    const answer = await portal.api('mtls', 'GET', apiPaths.takReadiness, { key: boss });
    expect(answer.status, answer.text).toBe(200);
    return takReadinessResponseSchema.parse(answer.json());
  }

  async function keysOf(callsign: string, as: MemberKey) {
    const own = callsign === as.callsign;
    const answer = await portal.api(
      'mtls',
      'GET',
      own ? apiPaths.myKeys : apiPaths.personKeys(callsign),
      { key: as },
    );
    expect(answer.status, answer.text).toBe(200);
    return keyListResponseSchema.parse(answer.json());
  }

  it('warns when no TAK Server ever checked a key or fetched the CRL', async () => {
    const facts = await readiness();
    expect(facts.presence).toEqual({
      last_ocsp_check: null,
      last_crl_fetch: null,
      crl_fetch_warn_after_seconds: 7 * 24 * 3600,
      members_seen_last_day: 0,
      warnings: ['no-ocsp-check', 'no-crl-fetch'],
    });
  });

  it('records an OCSP request on the key and the member, and shows it in the key lists and on the card', async () => {
    const key = await portal.addMember('Heron7');
    const before = await keysOf('Heron7', key);
    expect(before.last_seen_tak_at).toBeNull();
    expect(before.keys[0]).toMatchObject({ serial: key.serial, last_checked_at: null });

    expect((await askOcsp(key.serial)).status).toBe('good');
    await portal.portal.services.presence.flush();

    const checkedAt = new Date(clock).toISOString();
    const own = await keysOf('Heron7', key);
    expect(own.last_seen_tak_at).toBe(checkedAt);
    expect(own.keys[0]).toMatchObject({ serial: key.serial, last_checked_at: checkedAt });
    // The address is for admins only.
    expect(own.keys[0]).not.toHaveProperty('last_checked_from');
    const asAdmin = await keysOf('Heron7', boss);
    expect(asAdmin.last_seen_tak_at).toBe(checkedAt);
    // And in the admin's members table (docs/api.md#the-members-table), the most recently seen first.
    const table = await portal.api(
      'mtls',
      'GET',
      `${apiPaths.members}?sort=-last_seen_tak_at&limit=1`,
      { key: boss },
    );
    expect(membersListResponseSchema.parse(table.json()).members).toMatchObject([
      { callsign: 'Heron7', last_seen_tak_at: checkedAt },
    ]);
    expect(asAdmin.keys[0]).toMatchObject({
      last_checked_at: checkedAt,
      last_checked_from: TAK_SERVER,
    });

    clock += 2 * MINUTE;
    const facts = await readiness();
    expect(facts.presence.last_ocsp_check).toEqual({
      at: checkedAt,
      address: TAK_SERVER,
      age_seconds: 120,
    });
    expect(facts.presence.members_seen_last_day).toBe(1);
    expect(facts.presence.warnings).toEqual(['no-crl-fetch']);
  });

  it('counts no OCSP request from an address that is no configured TAK Server, even one that fetched the CRL', async () => {
    const key = await portal.addMember('Stranger7');
    clock += 2 * MINUTE;
    const lastBefore = (await readiness()).presence.last_ocsp_check;
    const stranger = '203.0.113.9';
    expect(
      (
        await portal.api('public', 'GET', caPaths.crlPem, {
          headers: { 'x-forwarded-for': stranger },
        })
      ).status,
    ).toBe(200);
    expect((await askOcsp(key.serial, stranger)).status).toBe('good');
    await portal.portal.services.presence.flush();
    const keys = await keysOf('Stranger7', boss);
    expect(keys.last_seen_tak_at).toBeNull();
    expect(keys.keys[0]).toMatchObject({ last_checked_at: null, last_checked_from: null });
    expect((await readiness()).presence.last_ocsp_check).toEqual(lastBefore);

    // Within the same minute, the TAK Server's request (an address of a configured range) counts.
    expect((await askOcsp(key.serial, '192.0.2.7')).status).toBe('good');
    await portal.portal.services.presence.flush();
    expect((await keysOf('Stranger7', boss)).keys[0]).toMatchObject({
      last_checked_at: new Date(clock).toISOString(),
      last_checked_from: '192.0.2.7',
    });
  });

  it('writes by itself shortly after the answer, with no flush asked for', async () => {
    const key = await portal.addMember('Osprey7');
    clock += 2 * MINUTE;
    expect((await askOcsp(key.serial)).status).toBe('good');
    await vi.waitFor(async () => {
      expect((await keysOf('Osprey7', key)).last_seen_tak_at).toBe(new Date(clock).toISOString());
    });
  });

  it('writes at most once a minute however many OCSP requests ask about one key', async () => {
    const key = await portal.addMember('Flood7');
    clock += 2 * MINUTE;
    const { presence } = portal.portal.services;
    await presence.flush();
    const written = presence.rowsWritten;
    const question = ocspQuestion(portal.portal.ca.issuingCertificatePem, key.serial);
    for (let i = 0; i < 1000; i++) {
      const answer = await portal.api('public', 'POST', caPaths.ocsp, {
        raw: question.der,
        contentType: 'application/ocsp-request',
        headers: fromTakServer,
      });
      expect(answer.status).toBe(200);
      if (i % 100 === 0) await presence.flush();
    }
    await presence.flush();
    // The key, its member and the last OCSP request, once each.
    expect(presence.rowsWritten - written).toBe(3);

    clock += MINUTE + 1000;
    expect((await askOcsp(key.serial)).status).toBe('good');
    await presence.flush();
    // A minute later: once each again.
    expect(presence.rowsWritten - written).toBe(6);
    const keys = await keysOf('Flood7', boss);
    expect(keys.last_seen_tak_at).toBe(new Date(clock).toISOString());
  });

  it('answers OCSP the same when recording fails', async () => {
    const key = await portal.addMember('Broken7');
    clock += 2 * MINUTE;
    const { db } = portal.portal.database;
    const gone = () => {
      throw new Error('database gone');
    };
    const warned = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    vi.spyOn(db, 'transaction').mockImplementation(gone);
    vi.spyOn(db, 'insertInto').mockImplementation(gone);
    expect((await askOcsp(key.serial)).status).toBe('good');
    await portal.portal.services.presence.flush();
    vi.restoreAllMocks();
    expect(warned).toHaveBeenCalledWith('Presence not recorded: Error: database gone');
    expect((await keysOf('Broken7', boss)).last_seen_tak_at).toBeNull();
  });

  it('records CRL fetches, and warns once the last is older than half the CRL validity', async () => {
    const crl = await portal.api('public', 'GET', caPaths.crlPem, { headers: fromTakServer });
    expect(crl.status).toBe(200);
    await portal.portal.services.presence.flush();
    const fetchedAt = new Date(clock).toISOString();
    let facts = await readiness();
    expect(facts.presence.last_crl_fetch).toEqual({
      at: fetchedAt,
      address: TAK_SERVER,
      age_seconds: 0,
    });
    expect(facts.presence.warnings).toEqual([]);

    clock += 7 * DAY - MINUTE;
    facts = await readiness();
    expect(facts.presence.warnings).toEqual(['ocsp-check-old']);

    clock += 2 * MINUTE;
    facts = await readiness();
    expect(facts.presence.warnings).toEqual(['ocsp-check-old', 'crl-fetch-old']);
    expect(facts.presence.members_seen_last_day).toBe(0);

    // A fetch of the DER form counts as well, and the warning goes.
    expect(
      (await portal.api('public', 'GET', caPaths.crlDer, { headers: fromTakServer })).status,
    ).toBe(200);
    await portal.portal.services.presence.flush();
    facts = await readiness();
    expect(facts.presence.warnings).toEqual(['ocsp-check-old']);
  });
});

describe.each(testEngines())('TAK presence without configured TAK Servers on $name', (engine) => {
  let portal: InjectPortal;
  let boss: MemberKey;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    boss = await portal.addMember('Boss8', { roles: ['admin'] });
    return portal;
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });

  async function askOcsp(serial: string, address: string) {
    const question = ocspQuestion(portal.portal.ca.issuingCertificatePem, serial);
    const answer = await portal.api('public', 'POST', caPaths.ocsp, {
      raw: question.der,
      contentType: 'application/ocsp-request',
      headers: from(address),
    });
    expect(answer.status).toBe(200);
    await portal.portal.services.presence.flush();
  }

  async function seen(callsign: string) {
    const answer = await portal.api('mtls', 'GET', apiPaths.personKeys(callsign), { key: boss });
    return keyListResponseSchema.parse(answer.json()).last_seen_tak_at;
  }

  it('counts an OCSP request only from an address that fetched the CRL', async () => {
    const key = await portal.addMember('Heron8');
    await askOcsp(key.serial, '198.51.100.7');
    expect(await seen('Heron8')).toBeNull();
    expect(
      (await portal.api('public', 'GET', caPaths.crlDer, { headers: from('10.0.0.6') })).status,
    ).toBe(200);
    await askOcsp(key.serial, '198.51.100.7');
    expect(await seen('Heron8')).toBeNull();
    await askOcsp(key.serial, '10.0.0.6');
    expect(await seen('Heron8')).not.toBeNull();
  });

  it('takes a CRL fetch another instance recorded (the last one, in the database)', async () => {
    const key = await portal.addMember('Heron9');
    const at = Date.now();
    await recordRevocationFetch(portal.portal.database.db, 'crl', {
      at,
      address: '10.0.0.8',
      notBefore: at + 1,
    });
    await askOcsp(key.serial, '10.0.0.8');
    expect(await seen('Heron9')).not.toBeNull();
  });
});
