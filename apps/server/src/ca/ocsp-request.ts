import { normalizeSerial } from './serial.js';

/** One certificate an OCSP request asks about (RFC 6960 CertID), as its bytes say it. */
export interface RequestedCertId {
  /** The CertID's whole DER encoding: what the answer repeats, and the cache's key. */
  readonly der: Buffer;
  /** The hash algorithm's OID, as the DER content bytes of the OBJECT IDENTIFIER (hex). */
  readonly hashOid: string;
  /** The hashAlgorithm AlgorithmIdentifier's DER: the OID, then a NULL or no parameters. */
  readonly algorithm: Buffer;
  readonly issuerNameHash: Buffer;
  readonly issuerKeyHash: Buffer;
  /** Normalised as `normalizeSerial` gives it. */
  readonly serial: string;
}

interface Tlv {
  readonly tag: number;
  /** Where the content starts and where the element ends. */
  readonly contentStart: number;
  readonly end: number;
}

const SEQUENCE = 0x30;
const OCTET_STRING = 0x04;
const INTEGER = 0x02;
const OBJECT_IDENTIFIER = 0x06;
const NULL = 0x05;
// TBSRequest's optional version [0] and requestorName [1], before the requestList.
const TBS_VERSION = 0xa0;
const TBS_REQUESTOR = 0xa1;

/**
 * The certificates a DER-encoded OCSPRequest asks about, read straight from its bytes: every
 * request of a flood is read, and the schema-checking parser took a millisecond each. Extensions
 * (a nonce) and an optional signature are skipped, as the responder ignores them. Undefined for
 * anything that is not a DER OCSPRequest.
 */
export function readOcspRequest(der: Buffer): RequestedCertId[] | undefined {
  try {
    const request = element(der, 0, SEQUENCE);
    if (request.end !== der.length) return undefined;
    const tbs = element(der, request.contentStart, SEQUENCE);
    let at = tbs.contentStart;
    for (const optional of [TBS_VERSION, TBS_REQUESTOR]) {
      if (at < tbs.end && der[at] === optional) at = readTlv(der, at).end;
    }
    const list = element(der, at, SEQUENCE);
    const certIds: RequestedCertId[] = [];
    for (let next = list.contentStart; next < list.end;) {
      const single = element(der, next, SEQUENCE);
      certIds.push(readCertId(der, single.contentStart));
      next = single.end;
    }
    return certIds;
  } catch {
    return undefined;
  }
}

function readCertId(der: Buffer, start: number): RequestedCertId {
  const certId = element(der, start, SEQUENCE);
  const algorithm = element(der, certId.contentStart, SEQUENCE);
  const oid = element(der, algorithm.contentStart, OBJECT_IDENTIFIER);
  // A hash algorithm takes no parameters: absent, or NULL as Java and openssl write them.
  if (oid.end !== algorithm.end) {
    const params = element(der, oid.end, NULL);
    if (params.end !== algorithm.end || params.contentStart !== params.end) {
      throw new RangeError('hash algorithm parameters');
    }
  }
  const nameHash = element(der, algorithm.end, OCTET_STRING);
  const keyHash = element(der, nameHash.end, OCTET_STRING);
  const serial = element(der, keyHash.end, INTEGER);
  if (serial.end !== certId.end || serial.end === serial.contentStart) {
    throw new RangeError('not a CertID');
  }
  return {
    der: der.subarray(start, certId.end),
    hashOid: der.toString('hex', oid.contentStart, oid.end),
    algorithm: der.subarray(certId.contentStart, algorithm.end),
    issuerNameHash: der.subarray(nameHash.contentStart, nameHash.end),
    issuerKeyHash: der.subarray(keyHash.contentStart, keyHash.end),
    serial: normalizeSerial(der.toString('hex', serial.contentStart, serial.end)),
  };
}

function element(der: Buffer, at: number, tag: number): Tlv {
  const tlv = readTlv(der, at);
  if (tlv.tag !== tag) throw new RangeError(`expected tag ${tag} at ${at}`);
  return tlv;
}

/** One DER element at `at`: definite lengths only, within the buffer. */
function readTlv(der: Buffer, at: number): Tlv {
  const tag = der[at];
  const first = der[at + 1];
  if (tag === undefined || first === undefined) throw new RangeError('truncated');
  let length = first;
  let contentStart = at + 2;
  if (first >= 0x80) {
    const octets = first & 0x7f;
    // 0x80 is BER's indefinite length; more than 3 length octets is no OCSP request.
    if (octets === 0 || octets > 3) throw new RangeError('unsupported length');
    length = 0;
    for (let i = 0; i < octets; i++) {
      const octet = der[contentStart + i];
      if (octet === undefined) throw new RangeError('truncated');
      length = length * 256 + octet;
    }
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > der.length) throw new RangeError('truncated');
  return { tag, contentStart, end };
}
