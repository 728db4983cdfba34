import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openssl, selfSignedCertificate } from '../ca/openssl-cli.testing.js';
import { buildTakTruststore } from './truststore.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

let dir: string;
let portalChain: string;
let operatorPem: string;

function selfSigned(name: string): Promise<string> {
  return selfSignedCertificate(dir, name, { days: 30 });
}

async function fingerprintsIn(p12: Buffer, password: string): Promise<string[]> {
  const file = path.join(dir, `t-${Date.now()}-${Math.random()}.p12`);
  await writeFile(file, p12);
  const text = await openssl(['pkcs12', '-in', file, '-passin', `pass:${password}`, '-nokeys']);
  const info = await openssl([
    'pkcs12',
    '-in',
    file,
    '-passin',
    `pass:${password}`,
    '-info',
    '-noout',
  ]);
  // The legacy form ATAK requires, never PBES2/AES.
  expect(info).not.toMatch(/PBES2|AES/);
  return [...text.matchAll(PEM_BLOCK)].map((match) => new X509Certificate(match[0]).fingerprint256);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'portal-truststore-'));
  const root = await readFile(await selfSigned('Portal Root'), 'utf8');
  const issuing = await readFile(await selfSigned('Portal Issuing'), 'utf8');
  portalChain = issuing + root;
  operatorPem = await selfSigned('Operator TAK CA');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('buildTakTruststore', () => {
  it("holds the portal's CA chain when no PEM file is configured", async () => {
    const p12 = await buildTakTruststore(
      { pemFile: undefined, caChainPem: portalChain },
      'public',
      'alpha',
    );
    const expected = [...portalChain.matchAll(PEM_BLOCK)].map(
      (match) => new X509Certificate(match[0]).fingerprint256,
    );
    expect(await fingerprintsIn(p12, 'public')).toEqual(expected);
  });

  it("holds the operator's PEM file instead when one is configured, under its password", async () => {
    const p12 = await buildTakTruststore(
      { pemFile: operatorPem, caChainPem: portalChain },
      'Tr&st<me>',
      'alpha',
    );
    const expected = new X509Certificate(await readFile(operatorPem)).fingerprint256;
    expect(await fingerprintsIn(p12, 'Tr&st<me>')).toEqual([expected]);
  });
});
