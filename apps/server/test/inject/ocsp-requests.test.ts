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

beforeAll(async () => {
  portal = await openInjectPortal();
  const key = await portal.addMember('Heron3');
  issuerPem = portal.portal.ca.issuingCertificatePem;
  question = ocspQuestion(issuerPem, key.serial);
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
