import { createPrivateKey, createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export type SigningAlgorithm =
  | { readonly name: 'RSASSA-PKCS1-v1_5'; readonly hash: 'SHA-256' }
  | { readonly name: 'ECDSA'; readonly hash: 'SHA-256' | 'SHA-384' };

/**
 * What the authority needs to sign with one CA key. The key is a WebCrypto key, used only through
 * `crypto`: a file key is Node's WebCrypto over a key read from disk; an HSM or KMS plugs in as a
 * WebCrypto provider that hands out non-extractable keys (for example a PKCS#11 one), with no
 * change to the authority.
 */
export interface CaSigner {
  readonly certificate: x509.X509Certificate;
  readonly signingAlgorithm: SigningAlgorithm;
  readonly privateKey: webcrypto.CryptoKey;
  readonly crypto: webcrypto.Crypto;
}

export class CaKeyError extends Error {
  override readonly name = 'CaKeyError';
}

/** A CA key kept as a PKCS#8 PEM file, optionally encrypted with a passphrase. */
export class FileKeySigner implements CaSigner {
  readonly crypto: webcrypto.Crypto = webcrypto;

  private constructor(
    readonly certificate: x509.X509Certificate,
    readonly signingAlgorithm: SigningAlgorithm,
    readonly privateKey: webcrypto.CryptoKey,
  ) {}

  /**
   * `label` names the key in errors (a file path). With a passphrase the PEM must be encrypted:
   * a plain key with a passphrase configured is refused rather than silently accepted.
   */
  static async fromPem(options: {
    certificatePem: string;
    privateKeyPem: string;
    passphrase?: string | undefined;
    label: string;
  }): Promise<FileKeySigner> {
    const { certificatePem, privateKeyPem, passphrase, label } = options;
    const encrypted = privateKeyPem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----');
    if (passphrase !== undefined && !encrypted) {
      throw new CaKeyError(`${label} is not encrypted, but a CA passphrase is configured`);
    }
    if (passphrase === undefined && encrypted) {
      throw new CaKeyError(`${label} is encrypted: configure the CA passphrase`);
    }
    let keyObject: KeyObject;
    try {
      keyObject = createPrivateKey({ key: privateKeyPem, format: 'pem', passphrase });
    } catch (error) {
      throw new CaKeyError(
        `${label} cannot be read${encrypted ? ' (wrong passphrase?)' : ''}: ${String(error)}`,
      );
    }
    const certificate = new x509.X509Certificate(certificatePem);
    const keySpki = createPublicKey(keyObject).export({ type: 'spki', format: 'der' });
    if (!keySpki.equals(Buffer.from(certificate.publicKey.rawData))) {
      throw new CaKeyError(`${label} does not belong to the certificate ${certificate.subject}`);
    }
    if (keyObject.asymmetricKeyType !== 'rsa') {
      throw new CaKeyError(`${label}: only RSA file keys are supported`);
    }
    const signingAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
    const privateKey = await webcrypto.subtle.importKey(
      'pkcs8',
      keyObject.export({ type: 'pkcs8', format: 'der' }),
      signingAlgorithm,
      false,
      ['sign'],
    );
    return new FileKeySigner(certificate, signingAlgorithm, privateKey);
  }
}
