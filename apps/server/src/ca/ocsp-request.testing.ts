import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { decodePemBlocks } from './pem.js';

/** The hash algorithms a CertID may name (RFC 6960 4.1.1), the OID's DER content in hex. */
const HASH_OIDS = {
  sha1: '2b0e03021a',
  sha256: '608648016503040201',
  sha384: '608648016503040202',
  sha512: '608648016503040203',
} as const;

export interface CertIdForm {
  readonly hash?: keyof typeof HASH_OIDS;
  /** Zero bytes written before the serial's INTEGER content: not DER, but Java's parser reads it. */
  readonly zeroPadding?: number;
  /** The AlgorithmIdentifier's parameters: NULL (as openssl and Java write it) or left out. */
  readonly nullParams?: boolean;
}

/**
 * A DER OCSP request about `serials` of the CA of `issuerPem`, in CertID forms openssl does not
 * make (another hash algorithm, a zero-padded serial), built byte by byte.
 */
export function ocspRequestFor(
  issuerPem: string,
  serials: string | readonly string[],
  form: CertIdForm = {},
): Buffer {
  const issuer = issuerParts(issuerPem);
  const hash = form.hash ?? 'sha1';
  const digest = (bytes: Uint8Array) => createHash(hash).update(bytes).digest();
  const algorithm = tlv(0x30, [
    tlv(0x06, [Buffer.from(HASH_OIDS[hash], 'hex')]),
    ...(form.nullParams === false ? [] : [Buffer.from([0x05, 0x00])]),
  ]);
  const nameHash = tlv(0x04, [digest(issuer.name)]);
  const keyHash = tlv(0x04, [digest(issuer.key)]);
  const requests = (typeof serials === 'string' ? [serials] : serials).map((serial) => {
    let bytes = Buffer.from(serial.length % 2 === 0 ? serial : `0${serial}`, 'hex');
    if ((bytes[0] ?? 0) >= 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    const padded = Buffer.concat([Buffer.alloc(form.zeroPadding ?? 0), bytes]);
    return tlv(0x30, [tlv(0x30, [algorithm, nameHash, keyHash, tlv(0x02, [padded])])]);
  });
  return tlv(0x30, [tlv(0x30, [tlv(0x30, requests)])]);
}

const parsedIssuers = new Map<string, { name: Uint8Array; key: Uint8Array }>();

/** The issuer's name and key as a CertID hashes them; parsed once (tests ask thousands of times). */
function issuerParts(issuerPem: string): { name: Uint8Array; key: Uint8Array } {
  let parts = parsedIssuers.get(issuerPem);
  if (parts === undefined) {
    const [der] = decodePemBlocks(issuerPem, 'CERTIFICATE');
    if (der === undefined) throw new TypeError('no certificate in the issuer PEM');
    const issuer = pkijs.Certificate.fromBER(new Uint8Array(der));
    parts = {
      name: new Uint8Array(issuer.subject.toSchema().toBER(false)),
      key: new Uint8Array(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView),
    };
    parsedIssuers.set(issuerPem, parts);
  }
  return parts;
}

function tlv(tag: number, parts: readonly Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else if (length < 0x100) header = Buffer.from([tag, 0x81, length]);
  else header = Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([header, content]);
}
