import { webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { errorCode, readIfExists } from './ca-files.js';
import { exportCaKey } from './hierarchy.js';
import { createKeyPair, privateKeyToPkcs8Pem } from './key-pair.js';
import { encodePem } from './pem.js';
import { randomSerial } from './serial.js';
import { CaKeyError, FileKeySigner, type CaSigner } from './signer.js';
import { authorityKeyIdentifier, BACKDATE_MS } from './templates.js';

/**
 * The delegated OCSP signing certificate (RFC 6960 4.2.2.2) and its key, kept beside the CA files:
 *
 *   ocsp-responder.pem       issued by the issuing CA: EKU id-kp-OCSPSigning, id-pkix-ocsp-nocheck
 *   ocsp-responder-key.pem   its RSA-2048 key, PKCS#8, mode 0600 (encrypted like the CA keys)
 *
 * Short-lived, so that nobody needs to check its revocation (nocheck): re-issued by the issuing CA
 * once less than RENEW_BEFORE_MS of it is left.
 */
export const OCSP_SIGNER_FILES = {
  certificate: 'ocsp-responder.pem',
  key: 'ocsp-responder-key.pem',
} as const;

export const OCSP_SIGNER_VALIDITY_MS = 30 * 86_400_000;
export const RENEW_BEFORE_MS = 10 * 86_400_000;

const OCSP_NOCHECK = '1.3.6.1.5.5.7.48.1.5';
const ASN1_NULL = new Uint8Array([0x05, 0x00]);

/** Whether `signer` can still sign OCSP answers at `now` without being renewed first. */
export function isOcspSignerCurrent(signer: CaSigner, now: Date): boolean {
  return signer.certificate.notAfter.getTime() - now.getTime() > RENEW_BEFORE_MS;
}

/**
 * The delegated OCSP signer of `issuing` kept in `dir`, or a new one issued (and written there)
 * when there is none, it is due for renewal, or it belongs to another issuing CA. A directory that
 * cannot be written (a read-only mount of the CA files) leaves the new signer in memory only.
 */
export async function loadOrIssueOcspSigner(options: {
  dir: string;
  issuing: CaSigner;
  passphrase: string | undefined;
  now: Date;
  /** Which issuing CA: 1 (the default) keeps OCSP_SIGNER_FILES, n ≥ 2 `ocsp-responder-{n}*.pem`. */
  generation?: number;
}): Promise<CaSigner> {
  const { dir, issuing, passphrase, now } = options;
  const files = ocspSignerFiles(options.generation ?? 1);
  const stored = await readStored(dir, files, passphrase);
  if (
    stored !== undefined &&
    isOcspSignerCurrent(stored, now) &&
    (await issuedBy(stored, issuing))
  ) {
    return stored;
  }
  const { certificatePem, privateKey } = await issueOcspSignerCertificate(issuing, now);
  await writeStored(dir, files, certificatePem, exportCaKey(privateKey, passphrase));
  return FileKeySigner.fromPem({
    certificatePem,
    privateKeyPem: privateKeyToPkcs8Pem(privateKey),
    label: path.join(dir, files.key),
  });
}

type OcspSignerFiles = { readonly [K in keyof typeof OCSP_SIGNER_FILES]: string };

function ocspSignerFiles(generation: number): OcspSignerFiles {
  if (generation === 1) return OCSP_SIGNER_FILES;
  return {
    certificate: `ocsp-responder-${generation}.pem`,
    key: `ocsp-responder-${generation}-key.pem`,
  };
}

async function issueOcspSignerCertificate(issuing: CaSigner, now: Date) {
  const keys = await createKeyPair('rsa-2048');
  const issuer = issuing.certificate;
  const organization = issuer.subjectName.getField('O')[0];
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: [
        ...(organization === undefined ? [] : [{ O: [organization] }]),
        { CN: ['Callsign Portal OCSP Responder'] },
      ],
      issuer: issuer.subjectName,
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      notAfter: new Date(
        Math.min(now.getTime() + OCSP_SIGNER_VALIDITY_MS, issuer.notAfter.getTime()),
      ),
      publicKey: keys.publicKeyDer,
      signingKey: issuing.privateKey,
      signingAlgorithm: issuing.signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.ocspSigning], false),
        new x509.Extension(OCSP_NOCHECK, false, ASN1_NULL),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKeyDer, false, issuing.crypto),
        await authorityKeyIdentifier(issuer, issuing.crypto),
      ],
    },
    issuing.crypto,
  );
  return {
    certificatePem: encodePem('CERTIFICATE', certificate.rawData),
    privateKey: keys.privateKey,
  };
}

async function issuedBy(signer: CaSigner, issuing: CaSigner): Promise<boolean> {
  return (
    signer.certificate.issuer === issuing.certificate.subject &&
    (await signer.certificate.verify(
      { publicKey: issuing.certificate.publicKey, signatureOnly: true },
      webcrypto,
    ))
  );
}

async function readStored(dir: string, files: OcspSignerFiles, passphrase: string | undefined) {
  const [certificatePem, privateKeyPem] = await Promise.all([
    readIfExists(path.join(dir, files.certificate)),
    readIfExists(path.join(dir, files.key)),
  ]);
  if (certificatePem === undefined || privateKeyPem === undefined) return undefined;
  try {
    return await FileKeySigner.fromPem({
      certificatePem,
      privateKeyPem,
      passphrase,
      label: path.join(dir, files.key),
    });
  } catch (error) {
    // Half of a pair another instance is replacing, or a pair of an earlier passphrase.
    if (error instanceof CaKeyError) return undefined;
    throw error;
  }
}

/**
 * Key first, then the certificate, each renamed into place whole: a reader finds the old pair,
 * the new pair, or a new key with the old certificate, which `FileKeySigner` refuses and a new
 * signer replaces.
 */
async function writeStored(
  dir: string,
  files: OcspSignerFiles,
  certificatePem: string,
  keyPem: string,
): Promise<void> {
  try {
    await replaceFile(path.join(dir, files.key), keyPem, 0o600);
    await replaceFile(path.join(dir, files.certificate), certificatePem, 0o644);
  } catch (error) {
    if (!isReadOnly(error)) throw error;
  }
}

async function replaceFile(file: string, content: string, mode: number): Promise<void> {
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await fs.writeFile(staging, content, { mode, flag: 'wx' });
    await fs.rename(staging, file);
  } finally {
    await fs.rm(staging, { force: true });
  }
}

function isReadOnly(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}
