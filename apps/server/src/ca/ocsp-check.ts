import { createHash, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { decodePemBlocks } from './pem.js';
import { normalizeSerial } from './serial.js';

/** What a verified OCSP answer says about one certificate. */
export interface OcspAnswer {
  readonly status: 'good' | 'revoked' | 'unknown';
  readonly revokedAt: Date | null;
  readonly producedAt: Date;
}

/** An OCSP request about one serial of `issuerPem`'s, and the nonce its answer must echo. */
export interface OcspQuestion {
  readonly der: Buffer;
  readonly nonce: Buffer;
  readonly serial: string;
}

const OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
const SHA1 = '1.3.14.3.2.26';
// What Java's OCSP checker allows between the responder's clock and its own (ocsp.clockSkew).
const CLOCK_SKEW_MS = 15 * 60_000;

/** Asks, as any OCSP client would, about `serial` issued by the CA of `issuerPem`. */
export function ocspQuestion(issuerPem: string, serial: string): OcspQuestion {
  const issuer = parsePem(issuerPem);
  const nonce = randomBytes(16);
  const request = new pkijs.OCSPRequest();
  request.tbsRequest.requestList = [new pkijs.Request({ reqCert: certIdOf(issuer, serial) })];
  request.tbsRequest.requestExtensions = [
    new pkijs.Extension({
      extnID: OCSP_NONCE,
      extnValue: new asn1js.OctetString({ valueHex: nonce }).toBER(false),
    }),
  ];
  return {
    der: Buffer.from(request.toSchema(true).toBER(false)),
    nonce,
    serial: normalizeSerial(serial),
  };
}

/**
 * Reads the answer to `question` as a relying party must: a successful response, signed by the
 * issuing CA (`issuerPem`) or by an OCSP signer it certified (RFC 6960 4.2.2.2), with a status for
 * the serial asked about that is current at `now`. A nonce, when the answer carries one, must be
 * the question's; the portal's own answers carry none (they are cached, RFC 5019). Anything else
 * throws: the answer cannot be believed.
 */
export async function readOcspAnswer(
  responseDer: Buffer,
  question: OcspQuestion,
  issuerPem: string,
  now: Date = new Date(),
): Promise<OcspAnswer> {
  const response = pkijs.OCSPResponse.fromBER(new Uint8Array(responseDer));
  const responseStatus = response.responseStatus.valueBlock.valueDec;
  if (responseStatus !== 0 || response.responseBytes === undefined) {
    throw new Error(`The OCSP responder refused the request (status ${String(responseStatus)})`);
  }
  const basic = pkijs.BasicOCSPResponse.fromBER(
    response.responseBytes.response.valueBlock.valueHexView,
  );
  const issuer = parsePem(issuerPem);
  const signed = await basic
    .verify({ trustedResponders: [issuer], trustedCerts: [issuer] })
    .catch(() => false);
  if (!signed) {
    throw new Error('The OCSP answer is not signed by the issuing CA or a responder it certified');
  }
  const echoed = basic.tbsResponseData.responseExtensions?.find(
    (extension) => extension.extnID === OCSP_NONCE,
  );
  const expectedNonce = new asn1js.OctetString({ valueHex: question.nonce }).toBER(false);
  if (
    echoed !== undefined &&
    !Buffer.from(echoed.extnValue.valueBlock.valueHexView).equals(Buffer.from(expectedNonce))
  ) {
    throw new Error('The OCSP answer echoes another request nonce');
  }
  const single = basic.tbsResponseData.responses.find(
    (candidate) =>
      normalizeSerial(
        Buffer.from(candidate.certID.serialNumber.valueBlock.valueHexView).toString('hex'),
      ) === question.serial,
  );
  if (single === undefined) throw new Error('The OCSP answer has no status for the serial asked');
  if (
    single.thisUpdate.getTime() > now.getTime() + CLOCK_SKEW_MS ||
    (single.nextUpdate !== undefined && single.nextUpdate.getTime() <= now.getTime())
  ) {
    throw new Error('The OCSP answer is not current');
  }
  return { ...decodeStatus(single.certStatus), producedAt: basic.tbsResponseData.producedAt };
}

// CertStatus ::= CHOICE { good [0], revoked [1] RevokedInfo, unknown [2] }
function decodeStatus(status: unknown): Pick<OcspAnswer, 'status' | 'revokedAt'> {
  if (!(status instanceof asn1js.BaseBlock)) throw new Error('The OCSP answer has no status');
  switch (status.idBlock.tagNumber) {
    case 0:
      return { status: 'good', revokedAt: null };
    case 1: {
      const revocationTime =
        status instanceof asn1js.Constructed ? status.valueBlock.value[0] : undefined;
      if (!(revocationTime instanceof asn1js.GeneralizedTime)) {
        throw new Error('The OCSP answer has no revocation time');
      }
      return { status: 'revoked', revokedAt: revocationTime.toDate() };
    }
    default:
      return { status: 'unknown', revokedAt: null };
  }
}

function certIdOf(issuer: pkijs.Certificate, serial: string): pkijs.CertID {
  const sha1 = (bytes: ArrayBuffer | Uint8Array) =>
    createHash('sha1')
      .update(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
      .digest();
  let serialBytes = Buffer.from(normalizeSerial(serial), 'hex');
  // A positive INTEGER: a leading 1 bit needs a zero byte before it.
  if ((serialBytes[0] ?? 0) >= 0x80) serialBytes = Buffer.concat([Buffer.from([0]), serialBytes]);
  return new pkijs.CertID({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({
      algorithmId: SHA1,
      algorithmParams: new asn1js.Null(),
    }),
    issuerNameHash: new asn1js.OctetString({
      valueHex: sha1(issuer.subject.toSchema().toBER(false)),
    }),
    issuerKeyHash: new asn1js.OctetString({
      valueHex: sha1(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView),
    }),
    serialNumber: new asn1js.Integer({ valueHex: serialBytes }),
  });
}

function parsePem(pem: string): pkijs.Certificate {
  const [der] = decodePemBlocks(pem, 'CERTIFICATE');
  if (der === undefined) throw new TypeError('no certificate in the issuer PEM');
  return pkijs.Certificate.fromBER(new Uint8Array(der));
}
