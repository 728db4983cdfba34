import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { certificatesIn } from './authority.js';
import type { CaMaterial } from './ca-files.js';
import { createIssuingCa, exportCaKey } from './hierarchy.js';
import { encodePem } from './pem.js';

/**
 * `ca adopt` (docs/tak.md#already-running-tak-server-use-its-ca): an existing CA, such as the one TAK Server's certificate scripts
 * make (`ca.pem` and `ca-do-not-share.key`, optionally an intermediate), becomes the portal's.
 * Everything is checked here, before anything is written; the result is the material of the
 * four CA files (ca-files.ts): the adopted CA with its key as the "root" files, and either an
 * issuing CA the portal makes under it (the default for a root) or the adopted CA again as the
 * issuing CA (it issues directly: always for an intermediate, `--issue-directly` for a root).
 */

/** A refusal of `ca adopt`: the message says what is wrong with which input. */
export class CaAdoptionError extends Error {
  override readonly name = 'CaAdoptionError';
}

export interface AdoptionInput {
  /** The CA's certificate (PEM), optionally followed by its issuers (TAK's ca.pem after an intermediate). */
  readonly certificatePem: string;
  readonly keyPem: string;
  /** Issuers of the CA up to its self-signed root (PEM), when the certificate file lacks them. */
  readonly chainPem?: string | undefined;
  /** Of the key given (`--passphrase-file`). */
  readonly passphrase?: string | undefined;
  /** A root signs members itself instead of an issuing CA made under it. */
  readonly issueDirectly: boolean;
  /** What the CA keys are encrypted with on disk (`PORTAL_CA_PASSPHRASE`). */
  readonly storePassphrase: string | undefined;
  /** The organisation of an issuing CA made here when the adopted CA's subject names none. */
  readonly organization: string;
  readonly now: Date;
}

export interface Adoption {
  readonly material: CaMaterial;
  readonly adopted: { readonly subject: string; readonly notAfter: Date; readonly root: boolean };
  /** Whether the adopted CA signs members itself. */
  readonly issuesDirectly: boolean;
  /** Subjects from the issuing CA up to the root. */
  readonly hierarchy: readonly string[];
}

/** The least validity left for a CA to be adopted: a member's key lasts up to a year. */
export const MIN_DAYS_LEFT = 30;
const DAY_MS = 86_400_000;
const { keyCertSign, cRLSign } = x509.KeyUsageFlags;

export async function prepareAdoption(input: AdoptionInput): Promise<Adoption> {
  const [adopted, ...rest] = readCertificates(input.certificatePem, '--cert');
  if (adopted === undefined) throw new CaAdoptionError('--cert holds no PEM certificate');
  const key = readKey(input.keyPem, input.passphrase);
  checkKeyMatches(adopted, key);
  checkIsCa(adopted, 'the certificate');
  checkValidity(adopted, input.now, 'the certificate');
  checkStrength(adopted, 'the certificate');
  const above = chainAbove(adopted, [
    ...rest,
    ...(input.chainPem === undefined ? [] : readCertificates(input.chainPem, '--chain')),
  ]);
  for (const issuer of above) {
    checkIsCa(issuer, `its issuer ${issuer.subject}`);
    checkValidity(issuer, input.now, `its issuer ${issuer.subject}`);
    checkStrength(issuer, `its issuer ${issuer.subject}`);
  }
  const root = above.length === 0;
  const issuesDirectly = input.issueDirectly || !root;
  const rootKey = exportCaKey(key, input.storePassphrase);
  const adoptedPem = encodePem('CERTIFICATE', adopted.rawData);
  let issuing = { certificatePem: adoptedPem, keyPem: rootKey };
  if (!issuesDirectly) {
    const pathLength = adopted.getExtension(x509.BasicConstraintsExtension)?.pathLength;
    if (pathLength === 0) {
      throw new CaAdoptionError(
        'the certificate allows no CA under it (pathLenConstraint 0): adopt it with ' +
          '--issue-directly so that it signs members itself',
      );
    }
    issuing = await createIssuingCa({
      parent: adopted,
      parentKey: key,
      organization: adopted.subjectName.getField('O')[0] ?? input.organization,
      now: input.now,
      passphrase: input.storePassphrase,
    });
  }
  const issuingSubject = new x509.X509Certificate(issuing.certificatePem).subject;
  return {
    material: {
      rootCertificate: adoptedPem,
      rootKey,
      issuingCertificate: issuing.certificatePem,
      issuingKey: issuing.keyPem,
      ...(above.length === 0
        ? {}
        : { chain: above.map((c) => encodePem('CERTIFICATE', c.rawData)).join('') }),
    },
    adopted: { subject: adopted.subject, notAfter: adopted.notAfter, root },
    issuesDirectly,
    hierarchy: [
      ...(issuesDirectly ? [] : [issuingSubject]),
      adopted.subject,
      ...above.map((c) => c.subject),
    ],
  };
}

function readCertificates(pem: string, option: string): x509.X509Certificate[] {
  try {
    return certificatesIn(pem);
  } catch (error) {
    throw new CaAdoptionError(
      `${option} holds a certificate that cannot be read: ${String(error)}`,
    );
  }
}

function readKey(keyPem: string, passphrase: string | undefined): KeyObject {
  if (!keyPem.includes('PRIVATE KEY-----')) {
    throw new CaAdoptionError('--key holds no PEM private key');
  }
  const encrypted = keyPem.includes('ENCRYPTED');
  if (encrypted && passphrase === undefined) {
    throw new CaAdoptionError(
      '--key is encrypted: give its passphrase in a file with --passphrase-file',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: keyPem, format: 'pem', passphrase });
  } catch {
    throw new CaAdoptionError(
      encrypted
        ? '--key cannot be decrypted with the passphrase of --passphrase-file'
        : '--key cannot be read as a private key',
    );
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new CaAdoptionError(
      `--key is an ${key.asymmetricKeyType ?? 'unknown'} key: only an RSA CA key can be adopted`,
    );
  }
  return key;
}

function checkKeyMatches(certificate: x509.X509Certificate, key: KeyObject): void {
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (!spki.equals(Buffer.from(certificate.publicKey.rawData))) {
    throw new CaAdoptionError(
      `--key does not belong to the certificate ${certificate.subject} (another key pair)`,
    );
  }
}

function checkIsCa(certificate: x509.X509Certificate, what: string): void {
  if (certificate.getExtension(x509.BasicConstraintsExtension)?.ca !== true) {
    throw new CaAdoptionError(
      `${what} (${certificate.subject}) is not a CA: it lacks basicConstraints CA:TRUE`,
    );
  }
  const usages = certificate.getExtension(x509.KeyUsagesExtension)?.usages;
  const missing = [
    ...((usages ?? 0) & keyCertSign ? [] : ['keyCertSign']),
    ...((usages ?? 0) & cRLSign ? [] : ['cRLSign']),
  ];
  if (missing.length > 0) {
    throw new CaAdoptionError(
      `${what} (${certificate.subject}) may not sign ${missing.includes('keyCertSign') ? 'certificates' : 'CRLs'}: ` +
        `its keyUsage lacks ${missing.join(' and ')}`,
    );
  }
}

function checkValidity(certificate: x509.X509Certificate, now: Date, what: string): void {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  if (certificate.notAfter.getTime() <= now.getTime()) {
    throw new CaAdoptionError(
      `${what} (${certificate.subject}) expired on ${day(certificate.notAfter)}`,
    );
  }
  if (certificate.notBefore.getTime() > now.getTime()) {
    throw new CaAdoptionError(
      `${what} (${certificate.subject}) is not valid before ${day(certificate.notBefore)}`,
    );
  }
  if (certificate.notAfter.getTime() - now.getTime() < MIN_DAYS_LEFT * DAY_MS) {
    throw new CaAdoptionError(
      `${what} (${certificate.subject}) expires on ${day(certificate.notAfter)}, in less than ` +
        `${MIN_DAYS_LEFT} days: renew it first`,
    );
  }
}

/** Signatures made with these hashes are taken; SHA-1, MD5 and the rest are refused. */
const STRONG_HASHES = new Set(['SHA-256', 'SHA-384', 'SHA-512']);
/** Algorithms that name no separate hash and are strong as they are. */
const STRONG_WITHOUT_HASH = new Set(['Ed25519', 'Ed448']);
const MIN_RSA_BITS = 2048;
const RSA_EXPONENT = 65537n;

/**
 * The key and signature of a CA in the chain: RSA of at least 2048 bits with the exponent 65537
 * (other key types were refused for the adopted CA by readKey), and a signature with SHA-256 or
 * stronger, the self-signed root's own included.
 */
function checkStrength(certificate: x509.X509Certificate, what: string): void {
  const named = `${what} (${certificate.subject})`;
  const details = new X509Certificate(Buffer.from(certificate.rawData)).publicKey
    .asymmetricKeyDetails;
  const { modulusLength, publicExponent } = details ?? {};
  if (modulusLength !== undefined && modulusLength < MIN_RSA_BITS) {
    throw new CaAdoptionError(
      `${named} has a ${modulusLength}-bit RSA key: a CA key needs at least ${MIN_RSA_BITS} bits`,
    );
  }
  if (publicExponent !== undefined && publicExponent !== RSA_EXPONENT) {
    throw new CaAdoptionError(
      `${named} has an RSA public exponent of ${publicExponent}: only ${RSA_EXPONENT} is accepted`,
    );
  }
  const algorithm = certificate.signatureAlgorithm as { name: string; hash?: { name: string } };
  const hash = algorithm.hash?.name;
  if (hash === undefined ? !STRONG_WITHOUT_HASH.has(algorithm.name) : !STRONG_HASHES.has(hash)) {
    throw new CaAdoptionError(
      `${named} is signed with ${hash ?? algorithm.name}: a CA signed with SHA-1 or weaker is ` +
        'refused (SHA-256 or stronger)',
    );
  }
}

/**
 * The issuers of `certificate` among `candidates`, nearest first, ending in a self-signed root;
 * empty when the certificate is a root itself.
 */
function chainAbove(
  certificate: x509.X509Certificate,
  candidates: readonly x509.X509Certificate[],
): x509.X509Certificate[] {
  const chain: x509.X509Certificate[] = [];
  let current = certificate;
  while (current.issuer !== current.subject || !verifiesItself(current)) {
    if (chain.length > 8) throw new CaAdoptionError('the chain given is longer than 8 CAs');
    const issuer = candidates.find(
      (candidate) => candidate.subject === current.issuer && signs(candidate, current),
    );
    if (issuer === undefined) {
      throw new CaAdoptionError(
        `${current.subject} is not self-signed and its issuer (${current.issuer}) is not given: ` +
          'give the certificates up to the root with --chain (TAK: root-ca.pem)',
      );
    }
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

function verifiesItself(certificate: x509.X509Certificate): boolean {
  return signs(certificate, certificate);
}

/** Whether `issuer`'s key made `certificate`'s signature (node:crypto verifies synchronously). */
function signs(issuer: x509.X509Certificate, certificate: x509.X509Certificate): boolean {
  const issuerKey = new X509Certificate(Buffer.from(issuer.rawData)).publicKey;
  return new X509Certificate(Buffer.from(certificate.rawData)).verify(issuerKey);
}
