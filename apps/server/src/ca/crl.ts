import * as x509 from '@peculiar/x509';
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
// RFC 5280 5.2.3: at most 20 octets.
const CRL_NUMBER_LIMIT = 2n ** 159n;

export async function signCrl(signer: CaSigner, params: CrlParams): Promise<EncodedCrl> {
  const { crlNumber, thisUpdate, nextUpdate } = params;
  if (crlNumber < 0n || crlNumber >= CRL_NUMBER_LIMIT) {
    throw new RangeError(`CRL number out of range: ${crlNumber.toString()}`);
  }
  if (nextUpdate.getTime() <= thisUpdate.getTime()) {
    throw new RangeError('nextUpdate must be after thisUpdate');
  }
  const crl = await x509.X509CrlGenerator.create(
    {
      issuer: signer.certificate.subjectName,
      thisUpdate,
      nextUpdate,
      signingKey: signer.privateKey,
      signingAlgorithm: signer.signingAlgorithm,
      extensions: [
        await authorityKeyIdentifier(signer.certificate, signer.crypto),
        new x509.Extension(CRL_NUMBER_OID, false, derInteger(crlNumber)),
      ],
      entries: params.revoked.map((entry) => ({
        serialNumber: normalizeSerial(entry.serial),
        revocationDate: entry.revokedAt,
        // RFC 5280 5.3.1: unspecified is expressed by leaving the reason code out.
        reason:
          entry.reason === undefined || entry.reason === 'unspecified'
            ? undefined
            : x509.X509CrlReason[entry.reason],
      })),
    },
    signer.crypto,
  );
  const der = Buffer.from(crl.rawData);
  return { pem: encodePem('X509 CRL', der), der };
}

/** DER INTEGER for a non-negative value (short length form: the value is at most 20 octets). */
function derInteger(value: bigint): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  const content = Buffer.from(hex, 'hex');
  return Buffer.concat([Buffer.from([0x02, content.length]), content]);
}
