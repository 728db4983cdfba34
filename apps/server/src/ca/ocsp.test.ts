import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, type IssuedCertificate } from './authority.js';
import { loadTestCa } from './test-ca.testing.js';
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
  it('answers good and revoked, signed by the issuing CA, echoing the nonce', async () => {
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
    expect(output).toContain('Response verify OK');
    // Without the nonce echoed back, openssl warns "no nonce in response".
    expect(output).not.toMatch(/WARNING|Nonce Verify error|Verify Failure/);
    expect(output).toContain('OCSP Response Status: successful (0x0)');
    expect(output).toMatch(/Response Extensions:\n\s+OCSP Nonce:/);
    expect(statuses).toContain('Response verify OK');
    expect(statuses).toMatch(new RegExp(`${files.good}: good\\n`));
    expect(statuses).toMatch(
      new RegExp(
        `${files.revoked}: revoked\\n.*\\n.*\\n\\s+Reason: keyCompromise\\n\\s+Revocation Time: Jan  2 03:04:05 2026 GMT`,
      ),
    );
    expect(lookedUp.sort()).toEqual([good.serial, revoked.serial].sort());
  });

  it('answers unknown for a serial it never issued', async () => {
    const { code, output, statuses } = await roundTrip([
      '-issuer',
      files.issuing,
      '-serial',
      '0x1234',
    ]);
    expect(code).toBe(0);
    expect(output).toContain('Response verify OK');
    expect(statuses).toMatch(/0x1234: unknown\n/);
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
