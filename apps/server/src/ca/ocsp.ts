import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { RevocationReason } from './crl.js';
import { normalizeSerial } from './serial.js';
import type { CaSigner } from './signer.js';

export type OcspCertificateStatus =
  | { readonly status: 'good' }
  | { readonly status: 'revoked'; readonly revokedAt: Date; readonly reason?: RevocationReason }
  | { readonly status: 'unknown' };

/** Looks a serial (normalised, see `normalizeSerial`) up in the record of issued certificates. */
export type OcspLookup = (serial: string) => Promise<OcspCertificateStatus>;

export type OcspErrorStatus = 'malformedRequest' | 'internalError' | 'tryLater' | 'unauthorized';

const OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';
const OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
const RESPONSE_STATUS = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  unauthorized: 6,
};
const REASON_CODES: Record<RevocationReason, number> = {
  unspecified: 0,
  keyCompromise: 1,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
};
// The hash algorithms a CertID may use, by OID.
const CERT_ID_HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
// Statuses come from the database on every request; an hour bounds how long a client may cache.
const RESPONSE_VALIDITY_MS = 60 * 60_000;
const MAX_REQUESTS = 16;

/**
 * Answers an RFC 6960 OCSP request (DER) with a response signed by the issuing CA itself.
 * A request about another issuer's certificates gets `unauthorized` (RFC 5019 2.2.3): this
 * responder speaks only for the issuing CA. Errors from `lookup` propagate: the caller logs
 * them and may answer `ocspErrorResponse('internalError')`.
 */
export async function respondOcsp(
  signer: CaSigner,
  requestDer: Buffer,
  lookup: OcspLookup,
  now: Date,
): Promise<Buffer> {
  let request: pkijs.OCSPRequest;
  try {
    request = pkijs.OCSPRequest.fromBER(new Uint8Array(requestDer));
  } catch {
    return ocspErrorResponse('malformedRequest');
  }
  const { requestList, requestExtensions } = request.tbsRequest;
  if (requestList.length === 0 || requestList.length > MAX_REQUESTS) {
    return ocspErrorResponse('malformedRequest');
  }
  const issuer = issuerHashes(signer);
  if (!requestList.every(({ reqCert }) => issuer.matches(reqCert))) {
    return ocspErrorResponse('unauthorized');
  }
  const producedAt = wholeSeconds(now);
  const responses = await Promise.all(
    requestList.map(
      async ({ reqCert }) =>
        new pkijs.SingleResponse({
          certID: reqCert,
          certStatus: encodeStatus(await lookup(serialOf(reqCert))),
          thisUpdate: producedAt,
          nextUpdate: new Date(producedAt.getTime() + RESPONSE_VALIDITY_MS),
        }),
    ),
  );
  const nonce = requestExtensions?.find((extension) => extension.extnID === OCSP_NONCE);
  const basic = new pkijs.BasicOCSPResponse({
    tbsResponseData: new pkijs.ResponseData({
      // byKey: SHA-1 of the issuing CA's public key (RFC 6960 4.2.1).
      responderID: new asn1js.OctetString({ valueHex: issuer.keyHash('sha1') }),
      producedAt,
      responses,
      ...(nonce ? { responseExtensions: [nonce] } : {}),
    }),
    certs: [pkijs.Certificate.fromBER(new Uint8Array(signer.certificate.rawData))],
  });
  const engine = new pkijs.CryptoEngine({ name: 'ca-signer', crypto: signer.crypto });
  await basic.sign(signer.privateKey, signer.signingAlgorithm.hash, engine);
  return encodeResponse(RESPONSE_STATUS.successful, basic);
}

export function ocspErrorResponse(status: OcspErrorStatus): Buffer {
  return encodeResponse(RESPONSE_STATUS[status]);
}

function encodeResponse(status: number, basic?: pkijs.BasicOCSPResponse): Buffer {
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: status }),
    ...(basic
      ? {
          responseBytes: new pkijs.ResponseBytes({
            responseType: OCSP_BASIC,
            response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
          }),
        }
      : {}),
  });
  return Buffer.from(response.toSchema().toBER(false));
}

function issuerHashes(signer: CaSigner) {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(signer.certificate.rawData));
  const name = new Uint8Array(certificate.subject.toSchema().toBER(false));
  const key = certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
  const keyHash = (algorithm: string) => createHash(algorithm).update(key).digest();
  return {
    keyHash,
    matches(certId: pkijs.CertID): boolean {
      const algorithm = CERT_ID_HASHES[certId.hashAlgorithm.algorithmId];
      if (algorithm === undefined) return false;
      const nameHash = createHash(algorithm).update(name).digest();
      return (
        nameHash.equals(certId.issuerNameHash.valueBlock.valueHexView) &&
        keyHash(algorithm).equals(certId.issuerKeyHash.valueBlock.valueHexView)
      );
    },
  };
}

function serialOf(certId: pkijs.CertID): string {
  return normalizeSerial(Buffer.from(certId.serialNumber.valueBlock.valueHexView).toString('hex'));
}

// CertStatus ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo,
//                         unknown [2] IMPLICIT UnknownInfo (NULL) }
function encodeStatus(status: OcspCertificateStatus): asn1js.BaseBlock {
  switch (status.status) {
    case 'good':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
    case 'unknown':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 } });
    case 'revoked': {
      const reason =
        status.reason === undefined || status.reason === 'unspecified'
          ? []
          : [
              new asn1js.Constructed({
                idBlock: { tagClass: 3, tagNumber: 0 },
                value: [new asn1js.Enumerated({ value: REASON_CODES[status.reason] })],
              }),
            ];
      return new asn1js.Constructed({
        idBlock: { tagClass: 3, tagNumber: 1 },
        value: [
          new asn1js.GeneralizedTime({ valueDate: wholeSeconds(status.revokedAt) }),
          ...reason,
        ],
      });
    }
  }
}

/** GeneralizedTime without fractional seconds, as RFC 5280 asks of DER times. */
function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
