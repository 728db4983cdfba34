import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** The keys made for members and servers (`PORTAL_KEY_ALGORITHM` picks one for members). */
export const KEY_ALGORITHMS = ['rsa-2048', 'ecdsa-p256'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** What a certificate's key usage depends on: RSA keys also encipher, EC keys only sign. */
export type PublicKeyType = 'rsa' | 'ec';

/** The CA's own keys; members and servers get a `KeyAlgorithm`. */
export type CaKeyAlgorithm = 'rsa-3072' | 'rsa-4096';

export interface GeneratedKeyPair {
  readonly privateKey: KeyObject;
  /** SubjectPublicKeyInfo, DER. */
  readonly publicKeyDer: Buffer;
}

const generate = promisify(generateKeyPair);

/** Generates off the event loop (libuv thread pool), with the platform's native crypto. */
export async function createKeyPair(
  algorithm: KeyAlgorithm | CaKeyAlgorithm,
): Promise<GeneratedKeyPair> {
  const { privateKey, publicKey } = await (algorithm === 'ecdsa-p256'
    ? generate('ec', { namedCurve: 'prime256v1' })
    : generate('rsa', { modulusLength: rsaModulusLength(algorithm), publicExponent: 0x10001 }));
  return { privateKey, publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }) };
}

export function rsaModulusLength(algorithm: 'rsa-2048' | CaKeyAlgorithm): number {
  switch (algorithm) {
    case 'rsa-2048':
      return 2048;
    case 'rsa-3072':
      return 3072;
    case 'rsa-4096':
      return 4096;
  }
}

export class UnsupportedPublicKeyError extends Error {
  override readonly name = 'UnsupportedPublicKeyError';
}

const EC_CURVES: readonly string[] = ['prime256v1', 'secp384r1'];
const RSA_PUBLIC_EXPONENT = 65537n;

/**
 * The type of a key made elsewhere (a device's, from its CSR), when this CA signs such keys:
 * RSA of at least 2048 bits with the public exponent 65537, or EC on P-256 or P-384
 * (docs/api.md). Anything else throws.
 */
export function acceptedPublicKeyType(publicKey: KeyObject): PublicKeyType {
  if (publicKey.type !== 'public') {
    throw new UnsupportedPublicKeyError(`a ${publicKey.type} key is not a public key`);
  }
  const details = publicKey.asymmetricKeyDetails ?? {};
  const type = publicKey.asymmetricKeyType;
  if (type === 'rsa') {
    if ((details.modulusLength ?? 0) < 2048) {
      throw new UnsupportedPublicKeyError(
        `an RSA key of ${details.modulusLength ?? 0} bits is too short (at least 2048)`,
      );
    }
    // Every common key maker uses 65537; a small one (3) is what signature forgeries feed on.
    if (details.publicExponent !== RSA_PUBLIC_EXPONENT) {
      throw new UnsupportedPublicKeyError(
        `an RSA key's public exponent ${String(details.publicExponent ?? 'unknown')} is not accepted (65537)`,
      );
    }
    return 'rsa';
  }
  if (type === 'ec') {
    if (EC_CURVES.includes(details.namedCurve ?? '')) return 'ec';
    throw new UnsupportedPublicKeyError(
      `the EC curve ${details.namedCurve ?? '(unnamed)'} is not accepted (P-256 or P-384)`,
    );
  }
  throw new UnsupportedPublicKeyError(`a ${type ?? 'typeless'} key is not accepted (RSA or EC)`);
}

/** Unencrypted PKCS#8 PEM, for a key that only ever lives in memory. */
export function privateKeyToPkcs8Pem(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
