import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { encodePem } from './pem.js';
import { normalizeSerial } from './serial.js';
import type { CaSigner } from './signer.js';
import { authorityKeyIdentifier } from './templates.js';

export type RevocationReason =
  'unspecified' | 'keyCompromise' | 'superseded' | 'cessationOfOperation' | 'affiliationChanged';

export interface RevokedCertificate {
  readonly serial: string;
  readonly revokedAt: Date;
  readonly reason?: RevocationReason;
}

export interface CrlParams {
  readonly revoked: readonly RevokedCertificate[];
  readonly crlNumber: bigint;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date;
}

export interface EncodedCrl {
  /** Labelled `X509 CRL`, the label OpenSSL and nginx accept. */
  readonly pem: string;
  readonly der: Buffer;
}

const CRL_NUMBER_OID = '2.5.29.20';
const CRL_REASON_OID = '2.5.29.21';
// RFC 5280 5.2.3: at most 20 octets.
const CRL_NUMBER_LIMIT = 2n ** 159n;

/**
 * Signs a CRL with pkijs, entry by entry in linear time. (@peculiar/x509's CRL generator checks
 * each entry against all earlier ones: with 10,000 revoked certificates that took seconds of
 * blocked event loop after every revocation. Serials here are unique by construction.)
 */
export async function signCrl(signer: CaSigner, params: CrlParams): Promise<EncodedCrl> {
  const { crlNumber, thisUpdate, nextUpdate } = params;
  if (crlNumber < 0n || crlNumber >= CRL_NUMBER_LIMIT) {
    throw new RangeError(`CRL number out of range: ${crlNumber.toString()}`);
  }
  if (nextUpdate.getTime() <= thisUpdate.getTime()) {
    throw new RangeError('nextUpdate must be after thisUpdate');
  }
  const issuer = pkijs.Certificate.fromBER(new Uint8Array(signer.certificate.rawData));
  const crlExtensions = [
    await authorityKeyIdentifier(signer.certificate, signer.crypto),
    new x509.Extension(CRL_NUMBER_OID, false, derInteger(crlNumber)),
  ].map((extension) => pkijs.Extension.fromBER(extension.rawData));
  const crl = new pkijs.CertificateRevocationList({
    version: 1,
    issuer: issuer.subject,
    thisUpdate: asnTime(thisUpdate),
    nextUpdate: asnTime(nextUpdate),
    crlExtensions: new pkijs.Extensions({ extensions: crlExtensions }),
  });
  if (params.revoked.length > 0) crl.revokedCertificates = params.revoked.map(revokedEntry);
  const engine = new pkijs.CryptoEngine({ name: 'ca-signer', crypto: signer.crypto });
  await crl.sign(signer.privateKey, signer.signingAlgorithm.hash, engine);
  // Encode afresh (DER: the same bytes that were signed) rather than re-parse the signed TBS, which
  // asn1js refuses past 10,000 nodes (about 3,000 entries).
  const der = Buffer.from((crl.toSchema(true) as asn1js.Sequence).toBER(false));
  return { pem: encodePem('X509 CRL', der), der };
}

function revokedEntry(entry: RevokedCertificate): pkijs.RevokedCertificate {
  let serial = Buffer.from(normalizeSerial(entry.serial), 'hex');
  // A positive INTEGER: a leading 1 bit needs a zero byte before it.
  if ((serial[0] ?? 0) >= 0x80) serial = Buffer.concat([Buffer.from([0]), serial]);
  const reasonExtension =
    // RFC 5280 5.3.1: unspecified is expressed by leaving the reason code out.
    entry.reason === undefined || entry.reason === 'unspecified'
      ? []
      : [
          new pkijs.Extension({
            extnID: CRL_REASON_OID,
            critical: false,
            extnValue: new asn1js.Enumerated({ value: x509.X509CrlReason[entry.reason] }).toBER(),
          }),
        ];
  return new pkijs.RevokedCertificate({
    userCertificate: new asn1js.Integer({ valueHex: serial }),
    revocationDate: asnTime(entry.revokedAt),
    ...(reasonExtension.length > 0
      ? { crlEntryExtensions: new pkijs.Extensions({ extensions: reasonExtension }) }
      : {}),
  });
}

/** RFC 5280 5.1.2.4: UTCTime through 2049, GeneralizedTime after; whole seconds. */
function asnTime(date: Date): pkijs.Time {
  const type =
    date.getUTCFullYear() < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime;
  return new pkijs.Time({ type, value: new Date(Math.floor(date.getTime() / 1000) * 1000) });
}

/** DER INTEGER for a non-negative value (short length form: the value is at most 20 octets). */
function derInteger(value: bigint): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  const content = Buffer.from(hex, 'hex');
  return Buffer.concat([Buffer.from([0x02, content.length]), content]);
}
