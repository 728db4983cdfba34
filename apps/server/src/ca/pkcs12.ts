import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { decodePemBlocks } from './pem.js';
import { buildLegacyPfx } from './pkcs12-legacy.js';
import { buildModernPfx } from './pkcs12-modern.js';

export type Pkcs12Format = 'legacy' | 'modern';

/**
 * A member's keystore: the key and the leaf (both with `friendlyName` and a matching
 * `localKeyId`), plus the CA chain. `legacy` is 3DES/SHA-1 (every OS and ATAK import it);
 * `modern` is AES-256/SHA-256.
 */
export interface KeystoreOptions {
  privateKeyPem: string;
  certificatePem: string;
  chainPem: string[];
  password: string;
  friendlyName: string;
  format: Pkcs12Format;
}

export async function buildPkcs12(options: KeystoreOptions): Promise<Buffer> {
  const privateKey = createPrivateKey(options.privateKeyPem);
  const leaf = new X509Certificate(options.certificatePem);
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new TypeError('the private key does not belong to the certificate');
  }
  // As OpenSSL does: the key's id is the SHA-1 of the certificate it pairs with.
  const localKeyId = createHash('sha1').update(leaf.raw).digest();
  const attributes = { friendlyName: options.friendlyName, localKeyId };
  const input = {
    password: options.password,
    key: { pkcs8Der: privateKey.export({ type: 'pkcs8', format: 'der' }), attributes },
    certificates: [
      { der: leaf.raw, attributes },
      ...options.chainPem.flatMap(certificatesIn).map((der) => ({ der, attributes: {} })),
    ],
  };
  switch (options.format) {
    case 'legacy':
      return buildLegacyPfx(input);
    case 'modern':
      return buildModernPfx(input);
  }
}

function certificatesIn(pem: string): Buffer[] {
  const blocks = decodePemBlocks(pem, 'CERTIFICATE');
  if (blocks.length === 0) throw new TypeError('a chain entry holds no PEM certificate');
  // Parsing rejects anything that is not a certificate before it is packed.
  return blocks.map((der) => new X509Certificate(der).raw);
}
