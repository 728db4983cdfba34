import { decodePemBlocks } from './pem.js';
import { buildLegacyPfx } from './pkcs12-legacy.js';

/**
 * The TAK truststore: certificates only, no key, in the legacy 3DES/SHA-1 form ATAK requires.
 * Each certificate is named `{friendlyNamePrefix}-{n}` (n from 1, in the given order). Bad input
 * throws at once; the packing itself is asynchronous (it yields to the event loop).
 */
export interface TrustStoreOptions {
  certificatesPem: string[];
  password: string;
  friendlyNamePrefix: string;
}

export function buildTrustStorePkcs12(options: TrustStoreOptions): Promise<Buffer> {
  const certificates = options.certificatesPem.flatMap((pem) =>
    decodePemBlocks(pem, 'CERTIFICATE'),
  );
  if (certificates.length === 0) throw new TypeError('a truststore needs at least one certificate');
  return buildLegacyPfx({
    password: options.password,
    certificates: certificates.map((der, index) => ({
      der,
      attributes: {
        friendlyName: `${options.friendlyNamePrefix}-${index + 1}`,
        trustedForAnyPurpose: true,
      },
    })),
  });
}
