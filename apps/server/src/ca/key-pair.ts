import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

export type KeyAlgorithm = 'rsa-2048' | 'ecdsa-p256';

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

function rsaModulusLength(algorithm: 'rsa-2048' | CaKeyAlgorithm): number {
  switch (algorithm) {
    case 'rsa-2048':
      return 2048;
    case 'rsa-3072':
      return 3072;
    case 'rsa-4096':
      return 4096;
  }
}

/** Unencrypted PKCS#8 PEM, for a key that only ever lives in memory. */
export function privateKeyToPkcs8Pem(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
