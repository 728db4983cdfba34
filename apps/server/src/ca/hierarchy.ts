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
  const issuingName: x509.JsonName = [
    { O: [organization] },
    { CN: ['Callsign Portal Issuing CA'] },
  ];
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
  const issuing = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: issuingName,
      issuer: root.subjectName,
      notBefore,
      notAfter: addYears(now, 5),
      publicKey: issuingKeys.publicKeyDer,
      signingKey: rootSigningKey,
      extensions: await issuingCaExtensions(issuingKeys.publicKeyDer, root, webcrypto),
    },
    webcrypto,
  );
  return {
    rootCertificate: encodePem('CERTIFICATE', root.rawData),
    rootKey: exportCaKey(rootKeys.privateKey, passphrase),
    issuingCertificate: encodePem('CERTIFICATE', issuing.rawData),
    issuingKey: exportCaKey(issuingKeys.privateKey, passphrase),
  };
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
