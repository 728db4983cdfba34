import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { normalizeSerial } from './serial.js';

/**
 * What the CRL worker (workers/crl-tbs.worker.ts) needs to encode a CRL's to-be-signed part:
 * everything but the CA's key, which stays on the main thread (it may be an HSM's key that
 * cannot leave its provider).
 */
export interface TbsJob {
  /** The issuing CA's certificate, DER: its subject is the CRL's issuer. */
  issuerDer: ArrayBuffer;
  /** The signature AlgorithmIdentifier, DER. */
  signatureAlgorithmDer: ArrayBuffer;
  /** Each CRL extension, DER. */
  crlExtensionsDer: ArrayBuffer[];
  thisUpdate: number;
  nextUpdate: number;
  /** The revoked serials in any hex form, one a line. */
  serials: string;
  /** When each was revoked, ms since the epoch, in the order of `serials`. */
  revokedAt: Float64Array;
  /** Each one's reason code (RFC 5280 CRLReason), or -1 for none. */
  reasons: Int8Array;
}

const REASON_CODE_OID = '2.5.29.21';

/**
 * A CRL's TBSCertList, DER, built entry by entry with pkijs (linear: @peculiar/x509's generator
 * compares each entry with all earlier ones). Throws a TypeError for a serial that is not hex.
 */
export function encodeTbs(job: TbsJob): ArrayBuffer {
  const serials = job.serials === '' ? [] : job.serials.split('\n');
  const entries = serials.map(
    (written, index) =>
      new pkijs.RevokedCertificate({
        userCertificate: new asn1js.Integer({ valueHex: positiveInteger(written) }),
        revocationDate: time(job.revokedAt[index] as number),
        ...reasonExtension(job.reasons[index] as number),
      }),
  );
  const crl = new UnsignedCrl({
    version: 1,
    signature: pkijs.AlgorithmIdentifier.fromBER(job.signatureAlgorithmDer),
    issuer: pkijs.Certificate.fromBER(job.issuerDer).subject,
    thisUpdate: time(job.thisUpdate),
    nextUpdate: time(job.nextUpdate),
    crlExtensions: new pkijs.Extensions({
      extensions: job.crlExtensionsDer.map((der) => pkijs.Extension.fromBER(der)),
    }),
  });
  if (entries.length > 0) crl.revokedCertificates = entries;
  return crl.tbsDer();
}

/** A CRL whose to-be-signed part is read before it is signed (pkijs keeps `encodeTBS` protected). */
class UnsignedCrl extends pkijs.CertificateRevocationList {
  tbsDer(): ArrayBuffer {
    return this.encodeTBS().toBER(false);
  }
}

/** RFC 5280 5.1.2.4: UTCTime through 2049, GeneralizedTime after; whole seconds. */
function time(ms: number): pkijs.Time {
  return new pkijs.Time({
    type:
      new Date(ms).getUTCFullYear() < 2050
        ? pkijs.TimeType.UTCTime
        : pkijs.TimeType.GeneralizedTime,
    value: new Date(Math.floor(ms / 1000) * 1000),
  });
}

/** A serial's INTEGER content: a leading 1 bit needs a zero byte before it to stay positive. */
function positiveInteger(written: string): Buffer {
  const hex = normalizeSerial(written);
  return Buffer.from(Number.parseInt(hex.slice(0, 2), 16) >= 0x80 ? `00${hex}` : hex, 'hex');
}

function reasonExtension(reason: number): { crlEntryExtensions?: pkijs.Extensions } {
  if (reason < 0) return {};
  const extnValue = new asn1js.Enumerated({ value: reason }).toBER();
  return {
    crlEntryExtensions: new pkijs.Extensions({
      extensions: [new pkijs.Extension({ extnID: REASON_CODE_OID, critical: false, extnValue })],
    }),
  };
}
