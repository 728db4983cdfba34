import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { BagAttributes } from './pkcs12-legacy.js';

/**
 * PKCS#12 with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC) for both the key and the certificates,
 * and an HMAC-SHA256 MAC: what `openssl pkcs12 -export` writes by default since OpenSSL 3.
 */
export interface ModernPfxInput {
  readonly password: string;
  readonly key: { readonly pkcs8Der: Buffer; readonly attributes: BagAttributes };
  readonly certificates: readonly { readonly der: Buffer; readonly attributes: BagAttributes }[];
}

const ITERATIONS = 2048;
const engine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto });

export async function buildModernPfx(input: ModernPfxInput): Promise<Buffer> {
  // PBES2 takes the password as UTF-8; pkijs turns it into a BMPString for the MAC itself.
  const password = toArrayBuffer(Buffer.from(input.password, 'utf8'));
  const encryption = {
    password,
    contentEncryptionAlgorithm: { name: 'AES-CBC', length: 256 },
    hmacHashAlgorithm: 'SHA-256',
    iterationCount: ITERATIONS,
  };
  const shroudedKey = new pkijs.PKCS8ShroudedKeyBag({
    parsedValue: pkijs.PrivateKeyInfo.fromBER(toArrayBuffer(input.key.pkcs8Der)),
  });
  await shroudedKey.makeInternalValues(encryption, engine);
  const certificateBags = input.certificates.map(
    (certificate) =>
      new pkijs.SafeBag({
        bagId: '1.2.840.113549.1.12.10.1.3',
        bagValue: new pkijs.CertBag({
          parsedValue: pkijs.Certificate.fromBER(toArrayBuffer(certificate.der)),
        }),
        ...bagAttributes(certificate.attributes),
      }),
  );
  const keyBag = new pkijs.SafeBag({
    bagId: '1.2.840.113549.1.12.10.1.2',
    bagValue: shroudedKey,
    ...bagAttributes(input.key.attributes),
  });
  const authenticatedSafe = new pkijs.AuthenticatedSafe({
    parsedValue: {
      safeContents: [
        // privacyMode 1: password-encrypted; 0: plain (the key inside is shrouded already).
        { privacyMode: 1, value: new pkijs.SafeContents({ safeBags: certificateBags }) },
        { privacyMode: 0, value: new pkijs.SafeContents({ safeBags: [keyBag] }) },
      ],
    },
  });
  await authenticatedSafe.makeInternalValues({ safeContents: [encryption, {}] }, engine);
  const pfx = new pkijs.PFX({ parsedValue: { integrityMode: 0, authenticatedSafe } });
  await pfx.makeInternalValues(
    {
      password,
      iterations: ITERATIONS,
      pbkdf2HashAlgorithm: 'SHA-256',
      hmacHashAlgorithm: 'SHA-256',
    },
    engine,
  );
  return Buffer.from(pfx.toSchema().toBER(false));
}

/** Spread into a SafeBag: no attribute set at all rather than an empty one. */
function bagAttributes(attributes: BagAttributes): { bagAttributes?: pkijs.Attribute[] } {
  const result: pkijs.Attribute[] = [];
  if (attributes.friendlyName !== undefined) {
    result.push(
      new pkijs.Attribute({
        type: '1.2.840.113549.1.9.20',
        values: [new asn1js.BmpString({ value: attributes.friendlyName })],
      }),
    );
  }
  if (attributes.localKeyId !== undefined) {
    result.push(
      new pkijs.Attribute({
        type: '1.2.840.113549.1.9.21',
        values: [new asn1js.OctetString({ valueHex: toArrayBuffer(attributes.localKeyId) })],
      }),
    );
  }
  return result.length > 0 ? { bagAttributes: result } : {};
}

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return new Uint8Array(bytes).buffer;
}
