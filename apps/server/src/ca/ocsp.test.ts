import { webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CertificateAuthority, type IssuedCertificate } from './authority.js';
import * as pkijs from 'pkijs';
import { ocspQuestion, readOcspAnswer } from './ocsp-check.js';
import { ocspRequestFor } from './ocsp-request.testing.js';
import { randomSerial } from './serial.js';
import { OCSP_SIGNER_FILES } from './ocsp-signer.js';
import { loadTestCa } from './test-ca.testing.js';
import { OCSP_NEW_SIGNATURES_BURST } from './ocsp.js';
import type { OcspCertificateStatus } from './ocsp.js';
import {
  makeTempDir,
  openssl,
  removeTempDir,
  runOpenssl,
  tempFileWriter,
} from './openssl-cli.testing.js';

let tmp: string;
let ca: CertificateAuthority;
let good: IssuedCertificate;
let revoked: IssuedCertificate;
let files: Record<'root' | 'issuing' | 'good' | 'revoked', string>;
const revokedAt = new Date('2026-01-02T03:04:05.678Z');
const lookedUp: string[] = [];
const write = tempFileWriter(() => tmp);

async function lookup(serial: string): Promise<OcspCertificateStatus> {
  lookedUp.push(serial);
  await Promise.resolve();
  if (serial === good.serial) return { status: 'good' };
  if (serial === revoked.serial) return { status: 'revoked', revokedAt, reason: 'keyCompromise' };
  return { status: 'unknown' };
}

/**
 * Builds a request with openssl and answers it; then openssl checks the answer twice: against
 * the request (signature, nonce, full text) and against the certificate ids (one status each).
 */
async function roundTrip(ids: string[]) {
  const requestFile = await write('', '.der');
  await openssl(['ocsp', ...ids, '-reqout', requestFile]);
  const response = await ca.respondOcsp(await fs.readFile(requestFile), lookup);
  const responseFile = await write(response, '.der');
  const checked = await runOpenssl([
    'ocsp',
    '-reqin',
    requestFile,
    '-respin',
    responseFile,
    '-CAfile',
    files.root,
    '-resp_text',
  ]);
  // With ids, openssl builds a request of its own: its nonce cannot match, so leave it out.
  const statuses = await runOpenssl([
    'ocsp',
    '-respin',
    responseFile,
    '-CAfile',
    files.root,
    ...ids,
    '-no_nonce',
  ]);
  return {
    code: checked.code,
    output: checked.stdout + checked.stderr,
    statuses: statuses.stdout + statuses.stderr,
  };
}

beforeAll(async () => {
  tmp = await makeTempDir();
  ca = await loadTestCa({
    dir: path.join(tmp, 'ca'),
    publicBaseUrl: 'https://portal.example.org',
  });
  [good, revoked] = await Promise.all([
    ca.issueMemberCertificate({ callsign: 'Good1', validityDays: 30 }),
    ca.issueMemberCertificate({ callsign: 'Revoked1', validityDays: 30 }),
  ]);
  files = {
    root: await write(ca.rootCertificatePem, '.pem'),
    issuing: await write(ca.issuingCertificatePem, '.pem'),
    good: await write(good.certificatePem, '.pem'),
    revoked: await write(revoked.certificatePem, '.pem'),
  };
});

afterAll(() => removeTempDir(tmp));

describe('respondOcsp', () => {
  it('answers good and revoked, signed by a delegated OCSP signer the issuing CA certified', async () => {
    lookedUp.length = 0;
    const { code, output, statuses } = await roundTrip([
      '-issuer',
      files.issuing,
      '-cert',
      files.good,
      '-cert',
      files.revoked,
    ]);
    expect(code).toBe(0);
    // openssl, given only the root, builds signer -> issuing CA -> root from the answer's certs.
    expect(output).toContain('Response verify OK');
    expect(output).not.toMatch(/Nonce Verify error|Verify Failure/);
    // Answers are cached, so none echoes a nonce (RFC 5019): openssl warns and still verifies.
    expect(output).toContain('WARNING: no nonce in response');
    expect(output).toContain('OCSP Response Status: successful (0x0)');
    const signer = await fs.readFile(path.join(tmp, 'ca', OCSP_SIGNER_FILES.certificate), 'utf8');
    const signerText = await openssl(['x509', '-noout', '-text'], signer);
    expect(signerText).toMatch(
      /Issuer: O ?= ?portal\.example\.org, CN ?= ?Callsign Portal Issuing CA/,
    );
    expect(signerText).toMatch(/Extended Key Usage: *\n\s+OCSP Signing/);
    expect(signerText).toContain('OCSP No Check');
    expect(signerText).toMatch(/Key Usage: critical\n\s+Digital Signature\n/);
    // The answer carries the signer kept in the CA directory.
    expect(output).toContain(signer.trim());
    expect(statuses).toContain('Response verify OK');
    expect(statuses).toMatch(new RegExp(`${files.good}: good\\n`));
    expect(statuses).toMatch(
      new RegExp(
        `${files.revoked}: revoked\\n.*\\n.*\\n\\s+Reason: keyCompromise\\n\\s+Revocation Time: Jan  2 03:04:05 2026 GMT`,
      ),
    );
    expect(lookedUp.sort()).toEqual([good.serial, revoked.serial].sort());
  });

  it('answers unauthorized, unsigned, for a serial it never issued (RFC 6960 2.3)', async () => {
    const before = ca.ocspSignatures;
    const { output } = await roundTrip(['-issuer', files.issuing, '-serial', '0x1234']);
    expect(output).toContain('Responder Error: unauthorized (6)');
    expect(ca.ocspSignatures).toBe(before);
  });

  it('answers unauthorized, without a lookup, for a certificate of another issuer', async () => {
    lookedUp.length = 0;
    // The root's name and key identify the request: this responder speaks for the issuing CA only.
    const { output } = await roundTrip(['-issuer', files.root, '-serial', `0x${good.serial}`]);
    expect(output).toContain('Responder Error: unauthorized (6)');
    expect(lookedUp).toEqual([]);
  });

  it('answers malformedRequest to something that is not an OCSP request', async () => {
    const response = await ca.respondOcsp(Buffer.from('not an OCSP request'), lookup);
    const result = await runOpenssl([
      'ocsp',
      '-respin',
      await write(response, '.der'),
      '-resp_text',
    ]);
    expect(result.stdout + result.stderr).toContain('Responder Error: malformedrequest (1)');
  });
});

describe('the cached responder', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function request(...ids: string[]): Promise<Buffer> {
    const requestFile = await write('', '.der');
    await openssl(['ocsp', '-issuer', files.issuing, ...ids, '-reqout', requestFile]);
    return fs.readFile(requestFile);
  }

  async function statusIn(response: Buffer, cert: string): Promise<string> {
    const result = await runOpenssl([
      'ocsp',
      '-respin',
      await write(response, '.der'),
      '-CAfile',
      files.root,
      '-issuer',
      files.issuing,
      '-cert',
      cert,
      '-no_nonce',
    ]);
    expect(result.stdout + result.stderr).toContain('Response verify OK');
    return new RegExp(`${cert}: (\\w+)`).exec(result.stdout)?.[1] ?? 'none';
  }

  it('answers a thousand requests with no private-key signature', async () => {
    // Two requests, each with a nonce of its own, about the same certificate.
    const [first, second] = await Promise.all([
      request('-cert', files.good),
      request('-cert', files.good),
    ]);
    const answered = await ca.respondOcsp(first, lookup);
    const sign = vi.spyOn(webcrypto.subtle, 'sign');
    const answers = [];
    for (let i = 0; i < 1000; i++)
      answers.push(await ca.respondOcsp(i % 2 ? first : second, lookup));
    expect(sign).not.toHaveBeenCalled();
    expect(answers.every((answer) => answer.equals(answered))).toBe(true);
    expect(await statusIn(answered, files.good)).toBe('good');
  });

  it('signs anew, once, when the status it answered changes', async () => {
    const asked = await request('-cert', files.good);
    let status: OcspCertificateStatus = { status: 'good' };
    const changing = () => Promise.resolve(status);
    await ca.respondOcsp(asked, changing);
    const sign = vi.spyOn(webcrypto.subtle, 'sign');
    status = { status: 'revoked', revokedAt, reason: 'keyCompromise' };
    const revokedAnswer = await ca.respondOcsp(asked, changing);
    expect(await statusIn(revokedAnswer, files.good)).toBe('revoked');
    await ca.respondOcsp(asked, changing);
    expect(sign).toHaveBeenCalledTimes(1);
  });

  it('keeps its signer in the CA directory and re-issues it before it expires', async () => {
    const dir = path.join(tmp, 'ca');
    const signerFile = path.join(dir, OCSP_SIGNER_FILES.certificate);
    await ca.respondOcsp(await request('-cert', files.good), lookup);
    const kept = await fs.readFile(signerFile, 'utf8');
    expect((await fs.stat(path.join(dir, OCSP_SIGNER_FILES.key))).mode & 0o777).toBe(0o600);
    const notAfter = new Date(
      (await openssl(['x509', '-noout', '-enddate'], kept)).replace(/^notAfter=/, '').trim(),
    );
    // 30 days, less the five minutes a certificate is backdated.
    expect(notAfter.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);

    // Another process on the same directory uses the same signer...
    const again = await loadTestCa({ dir, publicBaseUrl: 'https://portal.example.org' });
    const answer = await again.respondOcsp(await request('-cert', files.good), lookup);
    expect(await fs.readFile(signerFile, 'utf8')).toBe(kept);
    expect(
      (await runOpenssl(['ocsp', '-respin', await write(answer, '.der'), '-resp_text'])).stdout,
    ).toContain(kept.trim());

    // ...until 21 days later, when fewer than 10 are left: a new one, written in its place.
    const laterNow = new Date(Date.now() + 21 * 86_400_000);
    const later = await loadTestCa({
      dir,
      publicBaseUrl: 'https://portal.example.org',
      now: () => laterNow,
    });
    await later.respondOcsp(await request('-cert', files.good), lookup);
    const renewed = await fs.readFile(signerFile, 'utf8');
    expect(renewed).not.toBe(kept);
    const attime = String(Math.floor(laterNow.getTime() / 1000));
    expect(
      await openssl(
        ['verify', '-attime', attime, '-CAfile', files.root, '-untrusted', files.issuing],
        renewed,
      ),
    ).toContain('OK');
  });
});

describe('answers not yet cached', () => {
  it('are signed one at a time, and past 32 waiting the responder says tryLater', async () => {
    const issuer = ca.issuingCertificatePem;
    // 40 serials never asked about: 40 answers to sign at once.
    const questions = Array.from({ length: 40 }, (_, i) => ocspQuestion(issuer, `7e57${i + 16}`));
    const issued = () => Promise.resolve<OcspCertificateStatus>({ status: 'good' });
    const answers = await Promise.all(
      questions.map((question) => ca.respondOcsp(question.der, issued)),
    );
    const statuses = answers.map(
      (answer) =>
        pkijs.OCSPResponse.fromBER(new Uint8Array(answer)).responseStatus.valueBlock.valueDec,
    );
    // successful (0) for the first 32, tryLater (3) for the rest.
    expect(statuses).toEqual([...Array<number>(32).fill(0), ...Array<number>(8).fill(3)]);
    // Asked again once the queue has drained, they are answered.
    const again = await ca.respondOcsp(questions[39]!.der, issued);
    expect(
      pkijs.OCSPResponse.fromBER(new Uint8Array(again)).responseStatus.valueBlock.valueDec,
    ).toBe(0);
  });
});

/** The OCSP responseStatus of an answer: 0 successful, 3 tryLater, 6 unauthorized. */
function responseStatusOf(answer: Buffer): number {
  return pkijs.OCSPResponse.fromBER(new Uint8Array(answer)).responseStatus.valueBlock.valueDec;
}

// docs/api.md, "The OCSP responder": a CertID is answered in one form per certificate, and only a
// certificate this CA issued costs a signature.
describe('what a new CertID costs', () => {
  it('signs nothing for serials this CA never issued, in any hash algorithm', async () => {
    const before = ca.ocspSignatures;
    for (const hash of ['sha1', 'sha256'] as const) {
      for (let i = 0; i < 20; i++) {
        const answer = await ca.respondOcsp(
          ocspRequestFor(ca.issuingCertificatePem, randomSerial(), { hash }),
          lookup,
        );
        expect(responseStatusOf(answer)).toBe(6);
      }
    }
    expect(ca.ocspSignatures).toBe(before);
  });

  it('answers a zero-padded serial from the answer of the plain one', async () => {
    const plain = ocspQuestion(ca.issuingCertificatePem, good.serial);
    expect(
      (
        await readOcspAnswer(
          await ca.respondOcsp(plain.der, lookup),
          plain,
          ca.issuingCertificatePem,
        )
      ).status,
    ).toBe('good');
    const before = ca.ocspSignatures;
    for (let zeroPadding = 1; zeroPadding <= 5; zeroPadding++) {
      const padded = ocspRequestFor(ca.issuingCertificatePem, good.serial, { zeroPadding });
      const answer = await ca.respondOcsp(padded, lookup);
      // Read as Java reads it: the serial compared as a number.
      expect((await readOcspAnswer(answer, plain, ca.issuingCertificatePem)).status).toBe('good');
    }
    expect(ca.ocspSignatures).toBe(before);
  });

  it('answers SHA-1 and SHA-256 CertIDs, each signed once; other hashes unauthorized', async () => {
    const sha256 = ocspRequestFor(ca.issuingCertificatePem, revoked.serial, { hash: 'sha256' });
    expect(responseStatusOf(await ca.respondOcsp(sha256, lookup))).toBe(0);
    const before = ca.ocspSignatures;
    for (let zeroPadding = 0; zeroPadding < 4; zeroPadding++) {
      const again = ocspRequestFor(ca.issuingCertificatePem, revoked.serial, {
        hash: 'sha256',
        zeroPadding,
      });
      expect(responseStatusOf(await ca.respondOcsp(again, lookup))).toBe(0);
    }
    for (const hash of ['sha384', 'sha512'] as const) {
      const other = ocspRequestFor(ca.issuingCertificatePem, revoked.serial, { hash });
      expect(responseStatusOf(await ca.respondOcsp(other, lookup))).toBe(6);
    }
    expect(ca.ocspSignatures).toBe(before);
  });

  it("keeps members' answers cached past the cache's size of strangers' serials", async () => {
    const member = ocspQuestion(ca.issuingCertificatePem, good.serial);
    await ca.respondOcsp(member.der, lookup);
    // More strangers than the cache holds (10,000 answers).
    for (let i = 0; i < 10_001; i++) {
      await ca.respondOcsp(ocspRequestFor(ca.issuingCertificatePem, randomSerial()), lookup);
    }
    const before = ca.ocspSignatures;
    await ca.respondOcsp(member.der, lookup);
    expect(ca.ocspSignatures).toBe(before);
  });
});

describe('new signatures per address', () => {
  it('past its share, an address is told tryLater; others are still answered', async () => {
    const frozen = new Date();
    const bounded = await loadTestCa({
      dir: path.join(tmp, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
      now: () => frozen,
    });
    const issued = () => Promise.resolve<OcspCertificateStatus>({ status: 'good' });
    const ask = (address: string) =>
      bounded.respondOcsp(
        ocspQuestion(bounded.issuingCertificatePem, randomSerial()).der,
        issued,
        address,
      );
    const statuses: number[] = [];
    for (let i = 0; i < OCSP_NEW_SIGNATURES_BURST + 3; i++)
      statuses.push(responseStatusOf(await ask('192.0.2.7')));
    expect(statuses).toEqual([
      ...Array<number>(OCSP_NEW_SIGNATURES_BURST).fill(0),
      ...Array<number>(3).fill(3),
    ]);
    expect(bounded.ocspRefusals).toEqual({ address_budget: 3, queue_full: 0 });
    expect(responseStatusOf(await ask('192.0.2.8'))).toBe(0);
    // A cached answer costs no share: the first address is still answered from memory.
    const member = ocspQuestion(bounded.issuingCertificatePem, good.serial);
    await bounded.respondOcsp(member.der, lookup, '192.0.2.8');
    expect(responseStatusOf(await bounded.respondOcsp(member.der, lookup, '192.0.2.7'))).toBe(0);
  });
});
