import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { encodePem } from './pem.js';
import { encodeTbsInWorker } from './crl-worker.js';
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
// RFC 5280 5.2.3: at most 20 octets.
const CRL_NUMBER_LIMIT = 2n ** 159n;

/**
 * Signs a CRL with pkijs. The to-be-signed part, linear in the entries but seconds of JavaScript
 * at 10,000 of them, is encoded in a worker thread (crl-worker.ts); only the signature over it is
 * made here, with the CA's key through its WebCrypto provider (itself off the event loop), and
 * the three parts are joined without parsing the to-be-signed part again. (@peculiar/x509's CRL
 * generator checks each entry against all earlier ones; serials here are unique by construction.)
 */
export async function signCrl(signer: CaSigner, params: CrlParams): Promise<EncodedCrl> {
  const { crlNumber, thisUpdate, nextUpdate, revoked } = params;
  if (crlNumber < 0n || crlNumber >= CRL_NUMBER_LIMIT) {
    throw new RangeError(`CRL number out of range: ${crlNumber.toString()}`);
  }
  if (nextUpdate.getTime() <= thisUpdate.getTime()) {
    throw new RangeError('nextUpdate must be after thisUpdate');
  }
  for (const entry of revoked) {
    if (entry.serial.includes('\n')) {
      throw new TypeError(`not a hexadecimal serial number: ${JSON.stringify(entry.serial)}`);
    }
  }
  const engine = new pkijs.CryptoEngine({ name: 'ca-signer', crypto: signer.crypto });
  const { signatureAlgorithm, parameters } = await engine.getSignatureParameters(
    signer.privateKey,
    signer.signingAlgorithm.hash,
  );
  const crlExtensions = [
    await authorityKeyIdentifier(signer.certificate, signer.crypto),
    new x509.Extension(CRL_NUMBER_OID, false, derInteger(crlNumber)),
  ];
  const tbs = await encodeTbsInWorker({
    issuerDer: signer.certificate.rawData,
    signatureAlgorithmDer: signatureAlgorithm.toSchema().toBER(false),
    crlExtensionsDer: crlExtensions.map((extension) => extension.rawData),
    thisUpdate: thisUpdate.getTime(),
    nextUpdate: nextUpdate.getTime(),
    serials: revoked.map((entry) => entry.serial).join('\n'),
    revokedAt: Float64Array.from(revoked, (entry) => entry.revokedAt.getTime()),
    reasons: Int8Array.from(revoked, (entry) => reasonCode(entry.reason)),
  });
  const signature = await engine.signWithPrivateKey(tbs, signer.privateKey, parameters);
  const der = derSequence([
    Buffer.from(tbs),
    Buffer.from(signatureAlgorithm.toSchema().toBER(false)),
    Buffer.from(new asn1js.BitString({ valueHex: signature }).toBER(false)),
  ]);
  return { pem: encodePem('X509 CRL', der), der };
}

/** RFC 5280 5.3.1: unspecified is expressed by leaving the reason code out (-1). */
function reasonCode(reason: RevocationReason | undefined): number {
  return reason === undefined || reason === 'unspecified' ? -1 : x509.X509CrlReason[reason];
}

/** DER SEQUENCE of parts already encoded (definite length, long form past 127 octets). */
function derSequence(parts: Buffer[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  let lengthOctets: Buffer;
  if (length < 0x80) {
    lengthOctets = Buffer.from([length]);
  } else {
    let hex = length.toString(16);
    if (hex.length % 2 === 1) hex = `0${hex}`;
    const octets = Buffer.from(hex, 'hex');
    lengthOctets = Buffer.concat([Buffer.from([0x80 | octets.length]), octets]);
  }
  return Buffer.concat([Buffer.from([0x30]), lengthOctets, ...parts]);
}

/** DER INTEGER for a non-negative value (short length form: the value is at most 20 octets). */
function derInteger(value: bigint): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  const content = Buffer.from(hex, 'hex');
  return Buffer.concat([Buffer.from([0x02, content.length]), content]);
}
