import { webcrypto } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { caPaths } from '@callsign/contract';
import { ocspQuestion, readOcspAnswer, type OcspQuestion } from '../../src/ca/ocsp-check.js';
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
  const key = await portal.addMember('Heron3');
  issuerPem = portal.portal.ca.issuingCertificatePem;
  serial = key.serial;
  question = ocspQuestion(issuerPem, serial);
});

afterAll(() => portal.destroy());

afterEach(() => {
  vi.restoreAllMocks();
});

function post(der: Buffer, face: Face = 'public') {
  return portal.api(face, 'POST', caPaths.ocsp, {
    raw: der,
    contentType: 'application/ocsp-request',
  });
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
