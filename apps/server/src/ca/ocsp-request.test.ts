import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from './authority.js';
import { ocspQuestion } from './ocsp-check.js';
import { readOcspRequest } from './ocsp-request.js';
import { makeTempDir, openssl, removeTempDir, tempFileWriter } from './openssl-cli.testing.js';
import { loadTestCa } from './test-ca.testing.js';

let tmp: string;
let ca: CertificateAuthority;
const write = tempFileWriter(() => tmp);

beforeAll(async () => {
  tmp = await makeTempDir();
  ca = await loadTestCa({ dir: path.join(tmp, 'ca'), publicBaseUrl: 'https://portal.example.org' });
});

afterAll(() => removeTempDir(tmp));

describe('readOcspRequest', () => {
  it('reads the certificate ids of a request openssl made (nonce and all)', async () => {
    const issuer = await write(ca.issuingCertificatePem);
    const requestFile = await write('', '.der');
    const serials = ['-serial', '0x00ff01', '-serial', '0x7'];
    await openssl(['ocsp', '-issuer', issuer, ...serials, '-reqout', requestFile]);
    const read = readOcspRequest(await fs.readFile(requestFile));
    expect(read?.map(({ serial, hashOid }) => ({ serial, hashOid }))).toEqual([
      { serial: 'ff01', hashOid: '2b0e03021a' },
      { serial: '07', hashOid: '2b0e03021a' },
    ]);
  });

  it('refuses what is not a DER OCSP request, without throwing', () => {
    const der = ocspQuestion(ca.issuingCertificatePem, '0a0b').der;
    expect(readOcspRequest(der)?.map(({ serial }) => serial)).toEqual(['0a0b']);
    const broken = [
      Buffer.alloc(0),
      Buffer.from('not an OCSP request'),
      der.subarray(0, der.length - 1),
      Buffer.concat([der, Buffer.from([0])]),
      // BER's indefinite length.
      Buffer.from([0x30, 0x80, 0x30, 0x80, 0x00, 0x00, 0x00, 0x00]),
      Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]),
    ];
    for (const bytes of broken) expect(readOcspRequest(bytes)).toBeUndefined();
  });
});
