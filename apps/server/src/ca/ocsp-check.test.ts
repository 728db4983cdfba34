import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from './authority.js';
import { ocspQuestion, readOcspAnswer } from './ocsp-check.js';
import type { OcspCertificateStatus } from './ocsp.js';
import { makeTempDir, removeTempDir } from './openssl-cli.testing.js';
import { loadTestCa } from './test-ca.testing.js';

let tmp: string;
let ca: CertificateAuthority;
let other: CertificateAuthority;
const revokedAt = new Date('2026-01-02T03:04:05.000Z');

async function lookup(serial: string): Promise<OcspCertificateStatus> {
  await Promise.resolve();
  if (serial === '0a0b') return { status: 'good' };
  if (serial === '8c0d') return { status: 'revoked', revokedAt };
  return { status: 'unknown' };
}

beforeAll(async () => {
  tmp = await makeTempDir();
  // Two CAs with keys of their own: the run's CAs of two different hosts.
  const load = (host: string) =>
    loadTestCa({ dir: path.join(tmp, host), publicBaseUrl: `https://${host}` });
  [ca, other] = await Promise.all([load('portal.example.org'), load('portal.localhost')]);
});

afterAll(() => removeTempDir(tmp));

describe('asking the OCSP responder and reading its answer', () => {
  it('reads good and revoked (with its time) from an answer of the delegated signer; a serial never issued is refused', async () => {
    const issuer = ca.issuingCertificatePem;
    const ask = async (serial: string) => {
      const question = ocspQuestion(issuer, serial);
      return readOcspAnswer(await ca.respondOcsp(question.der, lookup), question, issuer);
    };
    expect(await ask('0A0B')).toMatchObject({ status: 'good', revokedAt: null });
    // A serial with its top bit set is sent as a positive INTEGER and still matched.
    expect(await ask('8c0d')).toMatchObject({ status: 'revoked', revokedAt });
    // A serial this CA never issued costs no signature: an unsigned unauthorized
    // (docs/api.md#the-ocsp-responder), which the reader refuses rather than taking for an answer.
    await expect(ask('77')).rejects.toThrow(/status 6/);
  });

  it('refuses an answer signed by another CA', async () => {
    const question = ocspQuestion(other.issuingCertificatePem, '0a0b');
    const forged = await other.respondOcsp(question.der, lookup);
    await expect(readOcspAnswer(forged, question, ca.issuingCertificatePem)).rejects.toThrow();
  });

  it('refuses an answer that is no longer current', async () => {
    const issuer = ca.issuingCertificatePem;
    const question = ocspQuestion(issuer, '0a0b');
    const answer = await ca.respondOcsp(question.der, lookup);
    expect(await readOcspAnswer(answer, question, issuer)).toMatchObject({ status: 'good' });
    const twoHoursLater = new Date(Date.now() + 2 * 60 * 60_000);
    await expect(readOcspAnswer(answer, question, issuer, twoHoursLater)).rejects.toThrow(
      /not current/,
    );
  });

  it('refuses an error response', async () => {
    const issuer = ca.issuingCertificatePem;
    // A question about the root's certificates: this responder answers unauthorized.
    const question = ocspQuestion(ca.rootCertificatePem, '0a0b');
    const answer = await ca.respondOcsp(question.der, lookup);
    await expect(readOcspAnswer(answer, question, issuer)).rejects.toThrow(/status 6/);
  });
});
