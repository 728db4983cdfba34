import { webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { CaMaterial } from './ca-files.js';
import { createKeyPair } from './key-pair.js';
import { encodePem } from './pem.js';
import { randomSerial } from './serial.js';
import { BACKDATE_MS, issuingCaExtensions, rootCaExtensions } from './templates.js';

/**
 * A new two-tier CA, in memory: a 20-year RSA-4096 root that signs only the issuing CA, and a
 * 5-year RSA-3072 issuing CA that signs everything else. Keys are PKCS#8 PEM, encrypted with
 * AES-256-CBC when a passphrase is given.
 */
export async function createCaMaterial(options: {
  organization: string;
  now: Date;
  passphrase: string | undefined;
}): Promise<CaMaterial> {
  const { organization, now, passphrase } = options;
  const [rootKeys, issuingKeys] = await Promise.all([
    createKeyPair('rsa-4096'),
    createKeyPair('rsa-3072'),
  ]);
  const rootName: x509.JsonName = [{ O: [organization] }, { CN: ['Callsign Portal Root CA'] }];
  const issuingName = issuingCaName(organization);
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const rootSigningKey = await importSigningKey(rootKeys.privateKey);
  const root = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: rootName,
      issuer: rootName,
      notBefore,
      notAfter: addYears(now, 20),
      publicKey: rootKeys.publicKeyDer,
      signingKey: rootSigningKey,
      extensions: await rootCaExtensions(rootKeys.publicKeyDer, webcrypto),
    },
    webcrypto,
  );
  const issuing = await signIssuingCa({
    name: issuingName,
    publicKeyDer: issuingKeys.publicKeyDer,
    parent: root,
    parentKey: rootSigningKey,
    now,
  });
  return {
    rootCertificate: encodePem('CERTIFICATE', root.rawData),
    rootKey: exportCaKey(rootKeys.privateKey, passphrase),
    issuingCertificate: encodePem('CERTIFICATE', issuing.rawData),
    issuingKey: exportCaKey(issuingKeys.privateKey, passphrase),
  };
}

/**
 * The portal's issuing CA's name: `O={organization}, CN=Callsign Portal Issuing CA`, and for a
 * rollover's (generation n ≥ 2) `… Issuing CA {n}`: a name of its own, so that relying parties
 * that find a CRL or an issuer by name never mix the two up during the overlap.
 */
export function issuingCaName(organization: string, generation = 1): x509.JsonName {
  const cn =
    generation === 1 ? 'Callsign Portal Issuing CA' : `Callsign Portal Issuing CA ${generation}`;
  return [{ O: [organization] }, { CN: [cn] }];
}

/**
 * A new issuing CA (RSA-3072, 5 years, never past its parent's end) under `parent`, whose RSA
 * key is `parentKey`: the one the portal makes under its own root or under an adopted CA
 * (adopt.ts). Its key is PKCS#8 PEM, encrypted when a passphrase is given.
 */
export async function createIssuingCa(options: {
  parent: x509.X509Certificate;
  parentKey: KeyObject;
  organization: string;
  now: Date;
  passphrase: string | undefined;
  /** 1 (the default) for the first issuing CA, n ≥ 2 for a rollover's (its name, issuingCaName). */
  generation?: number;
}): Promise<{ certificatePem: string; keyPem: string }> {
  const keys = await createKeyPair('rsa-3072');
  const issuing = await signIssuingCa({
    name: issuingCaName(options.organization, options.generation),
    publicKeyDer: keys.publicKeyDer,
    parent: options.parent,
    parentKey: await importSigningKey(options.parentKey),
    now: options.now,
  });
  return {
    certificatePem: encodePem('CERTIFICATE', issuing.rawData),
    keyPem: exportCaKey(keys.privateKey, options.passphrase),
  };
}

async function signIssuingCa(options: {
  name: x509.JsonName;
  publicKeyDer: Buffer;
  parent: x509.X509Certificate;
  parentKey: webcrypto.CryptoKey;
  now: Date;
}): Promise<x509.X509Certificate> {
  const { parent, now } = options;
  return x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: options.name,
      issuer: parent.subjectName,
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      // A CA cannot usefully outlive its issuer.
      notAfter: new Date(Math.min(addYears(now, 5).getTime(), parent.notAfter.getTime())),
      publicKey: options.publicKeyDer,
      signingKey: options.parentKey,
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      extensions: await issuingCaExtensions(options.publicKeyDer, parent, webcrypto),
    },
    webcrypto,
  );
}

async function importSigningKey(privateKey: KeyObject): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey(
    'pkcs8',
    privateKey.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
}

/** PKCS#8 PEM, encrypted with AES-256-CBC when a passphrase is given. */
export function exportCaKey(privateKey: KeyObject, passphrase: string | undefined): string {
  const pem =
    passphrase === undefined
      ? privateKey.export({ type: 'pkcs8', format: 'pem' })
      : privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase });
  return pem.toString();
}

function addYears(date: Date, years: number): Date {
  const result = new Date(date.getTime());
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}
