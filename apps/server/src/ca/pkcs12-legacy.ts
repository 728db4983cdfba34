import { randomBytes } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import forge from 'node-forge';

/**
 * The PKCS#12 that Android, iOS, macOS, Windows and ATAK all import: key and certificates under
 * pbeWithSHAAnd3-KeyTripleDES-CBC, MAC HMAC-SHA1 (what `openssl pkcs12 -export -legacy` writes,
 * minus RC2). Built from node-forge's primitives because forge's own `toPkcs12Asn1` leaves the
 * certificates unencrypted and only takes RSA keys.
 */
export interface LegacyPfxInput {
  readonly password: string;
  /** Omitted for a certificates-only store (a truststore). */
  readonly key?: { readonly pkcs8Der: Buffer; readonly attributes: BagAttributes };
  readonly certificates: readonly { readonly der: Buffer; readonly attributes: BagAttributes }[];
}

export interface BagAttributes {
  readonly friendlyName?: string;
  readonly localKeyId?: Buffer;
  /** Marks a certificate as a trust anchor for Java's PKCS12 keystore (keytool lists it). */
  readonly trustedForAnyPurpose?: boolean;
}

// OpenSSL's defaults (PKCS12_DEFAULT_ITER, PKCS5_SALT_LEN).
const ITERATIONS = 2048;
const SALT_BYTES = 8;

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  pbeWithSha1And3KeyTripleDesCbc: '1.2.840.113549.1.12.1.3',
  sha1: '1.3.14.3.2.26',
  oracleTrustedKeyUsage: '2.16.840.1.113894.746875.1.1',
  anyExtendedKeyUsage: '2.5.29.37.0',
} as const;

const { asn1 } = forge;
const U = asn1.Class.UNIVERSAL;
const T = asn1.Type;
type Asn1 = forge.asn1.Asn1;
// forge types every tag number as a universal type: NONE is 0, used here for the tag [0].
const TAG_0 = T.NONE;

/**
 * The key derivation of this format is 2,048 rounds of SHA-1 in JavaScript, five times per
 * keystore (about 18 ms on the event loop in all, bench/RESULTS.md "Isolation"): the builder
 * yields to the event loop after each one, so that other requests are answered in between.
 */
export async function buildLegacyPfx(input: LegacyPfxInput): Promise<Buffer> {
  const { password } = input;
  const certificateBags = input.certificates.map((certificate) =>
    safeBag(
      OID.certBag,
      sequence([oid(OID.x509Certificate), explicit0(octets(certificate.der))]),
      certificate.attributes,
    ),
  );
  const contents: Asn1[] = [await encryptedContentInfo(sequence(certificateBags), password)];
  if (input.key) {
    const { algorithm, ciphertext } = await pbeEncrypt(input.key.pkcs8Der, password);
    const shroudedKey = sequence([algorithm, octets(ciphertext)]);
    const keyBag = safeBag(OID.pkcs8ShroudedKeyBag, shroudedKey, input.key.attributes);
    contents.push(dataContentInfo(sequence([keyBag])));
  }
  const authenticatedSafe = der(sequence(contents));
  const pfx = sequence([
    integer(3),
    sequence([oid(OID.data), explicit0(octets(authenticatedSafe))]),
    await macData(authenticatedSafe, password),
  ]);
  return der(pfx);
}

/** A PKCS#12 key derivation (appendix B), then a turn of the event loop for everyone else. */
async function deriveKey(
  password: string,
  salt: Buffer,
  id: 1 | 2 | 3,
  length: number,
): Promise<forge.util.ByteStringBuffer> {
  const key = forge.pkcs12.generateKey(password, byteBuffer(salt), id, ITERATIONS, length);
  await yieldToEventLoop();
  return key;
}

/** PKCS#12 appendix B key derivation (BMPString password), then 3DES-CBC. */
async function pbeEncrypt(
  plaintext: Buffer,
  password: string,
): Promise<{ algorithm: Asn1; ciphertext: Buffer }> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(password, salt, 1, 24);
  const iv = await deriveKey(password, salt, 2, 8);
  const cipher = forge.cipher.createCipher('3DES-CBC', key);
  cipher.start({ iv });
  cipher.update(byteBuffer(plaintext));
  if (!cipher.finish()) throw new Error('3DES encryption failed');
  const algorithm = sequence([
    oid(OID.pbeWithSha1And3KeyTripleDesCbc),
    sequence([octets(salt), integer(ITERATIONS)]),
  ]);
  return { algorithm, ciphertext: Buffer.from(cipher.output.getBytes(), 'binary') };
}

async function macData(authenticatedSafe: Buffer, password: string): Promise<Asn1> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(password, salt, 3, 20);
  const hmac = forge.hmac.create();
  hmac.start('sha1', key);
  hmac.update(authenticatedSafe.toString('binary'));
  const digest = Buffer.from(hmac.digest().getBytes(), 'binary');
  return sequence([
    sequence([sequence([oid(OID.sha1), asn1.create(U, T.NULL, false, '')]), octets(digest)]),
    octets(salt),
    integer(ITERATIONS),
  ]);
}

async function encryptedContentInfo(safeContents: Asn1, password: string): Promise<Asn1> {
  const { algorithm, ciphertext } = await pbeEncrypt(der(safeContents), password);
  const encryptedData = sequence([
    integer(0),
    sequence([
      oid(OID.data),
      algorithm,
      // encryptedContent [0] IMPLICIT OCTET STRING
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, TAG_0, false, ciphertext.toString('binary')),
    ]),
  ]);
  return sequence([oid(OID.encryptedData), explicit0(encryptedData)]);
}

function dataContentInfo(safeContents: Asn1): Asn1 {
  return sequence([oid(OID.data), explicit0(octets(der(safeContents)))]);
}

function safeBag(bagId: string, value: Asn1, attributes: BagAttributes): Asn1 {
  const items = [oid(bagId), explicit0(value)];
  const attributeList: Asn1[] = [];
  if (attributes.friendlyName !== undefined) {
    attributeList.push(
      attribute(OID.friendlyName, asn1.create(U, T.BMPSTRING, false, attributes.friendlyName)),
    );
  }
  if (attributes.localKeyId !== undefined) {
    attributeList.push(attribute(OID.localKeyId, octets(attributes.localKeyId)));
  }
  if (attributes.trustedForAnyPurpose === true) {
    attributeList.push(attribute(OID.oracleTrustedKeyUsage, oid(OID.anyExtendedKeyUsage)));
  }
  if (attributeList.length > 0) items.push(asn1.create(U, T.SET, true, attributeList));
  return sequence(items);
}

function attribute(type: string, value: Asn1): Asn1 {
  return sequence([oid(type), asn1.create(U, T.SET, true, [value])]);
}

function sequence(items: Asn1[]): Asn1 {
  return asn1.create(U, T.SEQUENCE, true, items);
}

function oid(value: string): Asn1 {
  return asn1.create(U, T.OID, false, asn1.oidToDer(value).getBytes());
}

function octets(bytes: Buffer): Asn1 {
  return asn1.create(U, T.OCTETSTRING, false, bytes.toString('binary'));
}

function integer(value: number): Asn1 {
  return asn1.create(U, T.INTEGER, false, asn1.integerToDer(value).getBytes());
}

function explicit0(inner: Asn1): Asn1 {
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, TAG_0, true, [inner]);
}

function der(value: Asn1): Buffer {
  return Buffer.from(asn1.toDer(value).getBytes(), 'binary');
}

function byteBuffer(bytes: Buffer): forge.util.ByteStringBuffer {
  return forge.util.createBuffer(bytes.toString('binary'));
}
