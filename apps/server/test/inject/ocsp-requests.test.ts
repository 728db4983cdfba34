import { webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { caPaths } from '@callsign/contract';
import { ocspQuestion, readOcspAnswer, type OcspQuestion } from '../../src/ca/ocsp-check.js';
import { OCSP_NEW_SIGNATURES_BURST } from '../../src/ca/ocsp.js';
import { ocspRequestFor } from '../../src/ca/ocsp-request.testing.js';
import { randomSerial } from '../../src/ca/serial.js';
import { revokeMember } from '../../src/commands/revoke-member.js';
import { openssl } from '../../src/ca/openssl-cli.testing.js';
import { scrapeProbes } from '../../src/server.js';
import { Scrape } from '../support/prometheus-text.js';
import type { Face } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// `/ca/ocsp` as relying parties call it (docs/api.md): POST, and GET with the request in the path
// (RFC 5019: base64, then URL-encoded, as Java's OCSP client sends it).

let portal: InjectPortal;
let question: OcspQuestion;
let issuerPem: string;
let serial: string;

beforeAll(async () => {
  portal = await openInjectPortal();
  // As the service does when it starts the metrics listener.
  portal.portal.metrics.watch(scrapeProbes(portal.portal));
  const key = await portal.addMember('Heron3');
  issuerPem = portal.portal.ca.issuingCertificatePem;
  serial = key.serial;
  question = ocspQuestion(issuerPem, serial);
});

afterAll(() => portal.destroy());

afterEach(() => {
  vi.restoreAllMocks();
});

function post(der: Buffer, face: Face = 'public', from?: string) {
  return portal.api(face, 'POST', caPaths.ocsp, {
    raw: der,
    contentType: 'application/ocsp-request',
    ...(from === undefined ? {} : { headers: { 'x-forwarded-for': from } }),
  });
}

/** Private-key signatures the responder made so far (`callsign_portal_ocsp_signatures_total`). */
async function signatures(): Promise<number> {
  return (await Scrape.parse(await portal.portal.metrics.text())).value(
    'callsign_portal_ocsp_signatures_total',
  );
}

/** The OCSP responseStatus of an answer (0 successful, 1 malformedRequest, ...). */
function responseStatusOf(body: Buffer): number {
  // OCSPResponse ::= SEQUENCE { responseStatus ENUMERATED, ... }: 30 len 0a 01 status
  const at = body.indexOf(Buffer.from([0x0a, 0x01]));
  expect(at).toBeGreaterThan(0);
  return body[at + 2] ?? -1;
}

describe('GET /ca/ocsp/{request}', () => {
  it('decodes the path once: URL-encoded base64 as Java sends it', async () => {
    // A question whose base64 holds a + or a /, sent as %2B or %2F.
    let asked = question;
    while (!/[+/]/.test(asked.der.toString('base64'))) asked = ocspQuestion(issuerPem, serial);
    const encoded = encodeURIComponent(asked.der.toString('base64'));
    const answer = await portal.api('public', 'GET', `${caPaths.ocsp}/${encoded}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/ocsp-response');
    expect((await readOcspAnswer(answer.body, asked, issuerPem)).status).toBe('good');
  });

  it.each([['%25zz'], ['%25'], ['%25%25'], ['%zz'], ['AAAA'], ['not%20base64%21'], ['']])(
    'answers malformedRequest to %j, never a 5xx',
    async (path) => {
      for (const face of ['public', 'mtls'] as const) {
        const answer = await portal.api(face, 'GET', `${caPaths.ocsp}/${path}`);
        expect(answer.status, answer.text).toBeLessThan(500);
        if (answer.status === 200) {
          expect(answer.headers['content-type']).toBe('application/ocsp-response');
          expect(responseStatusOf(answer.body)).toBe(1);
        } else {
          expect(answer.status).toBe(400);
        }
      }
    },
  );
});

describe('POST /ca/ocsp', () => {
  it('answers a thousand requests with no private-key signature', async () => {
    const first = await post(question.der);
    expect((await readOcspAnswer(first.body, question, issuerPem)).status).toBe('good');
    const sign = vi.spyOn(webcrypto.subtle, 'sign');
    for (let i = 0; i < 1000; i++) {
      const answer = await post(question.der, i % 2 ? 'public' : 'mtls');
      expect(answer.status).toBe(200);
      expect(answer.body.equals(first.body)).toBe(true);
    }
    expect(sign).not.toHaveBeenCalled();
  });
});

// Issue 36, finding 3 (docs/api.md, "The OCSP responder"): only a certificate this CA issued costs
// a signature, once per form and status.
describe('what a new CertID costs', () => {
  it('signs nothing for serials this CA never issued: unauthorized, unsigned', async () => {
    const before = await signatures();
    for (const hash of ['sha1', 'sha256'] as const) {
      for (let i = 0; i < 25; i++) {
        const answer = await post(ocspRequestFor(issuerPem, randomSerial(), { hash }));
        expect(answer.status).toBe(200);
        expect(responseStatusOf(answer.body)).toBe(6);
      }
    }
    expect(await signatures()).toBe(before);
  });

  it("answers a member's zero-padded serial and a SHA-256 CertID, each form signed once", async () => {
    const key = await portal.addMember('Padded2');
    const plain = ocspQuestion(issuerPem, key.serial);
    expect((await readOcspAnswer((await post(plain.der)).body, plain, issuerPem)).status).toBe(
      'good',
    );
    expect(
      responseStatusOf(
        (await post(ocspRequestFor(issuerPem, key.serial, { hash: 'sha256' }))).body,
      ),
    ).toBe(0);
    const before = await signatures();
    for (let zeroPadding = 1; zeroPadding <= 4; zeroPadding++) {
      const padded = await post(ocspRequestFor(issuerPem, key.serial, { zeroPadding }));
      expect((await readOcspAnswer(padded.body, plain, issuerPem)).status).toBe('good');
      const sha256 = await post(
        ocspRequestFor(issuerPem, key.serial, { hash: 'sha256', zeroPadding }),
      );
      expect(responseStatusOf(sha256.body)).toBe(0);
    }
    expect(await signatures()).toBe(before);
  });

  it('says tryLater to an address past its share of new signatures, and counts it', async () => {
    const [one, two] = [await portal.addMember('Share1'), await portal.addMember('Share2')];
    expect(responseStatusOf((await post(question.der)).body)).toBe(0);
    // The clock stands still: no share is earned back while the answers are signed.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      // Two certificates in one request: an answer not kept, so each asks for a new signature.
      const both = ocspRequestFor(issuerPem, [one.serial, two.serial]);
      const statuses: number[] = [];
      for (let i = 0; i < OCSP_NEW_SIGNATURES_BURST + 2; i++) {
        statuses.push(responseStatusOf((await post(both, 'public', '198.51.100.7')).body));
      }
      expect(statuses).toEqual([
        ...Array<number>(OCSP_NEW_SIGNATURES_BURST).fill(0),
        ...Array<number>(2).fill(3),
      ]);
      // Another address is answered meanwhile, and the first one's cached answers too.
      expect(responseStatusOf((await post(both, 'public', '198.51.100.8')).body)).toBe(0);
      expect(responseStatusOf((await post(question.der, 'public', '198.51.100.7')).body)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    const page = await Scrape.parse(await portal.portal.metrics.text());
    expect(page.value('callsign_portal_ocsp_try_later_total', { reason: 'address_budget' })).toBe(
      2,
    );
  });
});

// Issue 36, finding 11: a revoked answer carries the reason docs/api.md promises.
describe('a revoked answer', () => {
  it('says why, as openssl ocsp shows it', async () => {
    const key = await portal.addMember('Leaver4');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Leaver4',
      actor: 'test',
      clientAddress: null,
    });
    const answer = await post(ocspQuestion(issuerPem, key.serial).der);
    const responseFile = path.join(portal.workDir, 'leaver4-ocsp.der');
    await writeFile(responseFile, answer.body);
    const text = await openssl(['ocsp', '-respin', responseFile, '-resp_text', '-noverify']);
    expect(text).toContain('Cert Status: revoked');
    expect(text).toMatch(/Revocation Reason: affiliationChanged \(0x3\)/);
  });
});
