import { setImmediate as nextTurn } from 'node:timers/promises';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { TbsJob } from './crl-tbs.js';
import { encodePem } from './pem.js';
import type { CaSigner } from './signer.js';
import { authorityKeyIdentifier } from './templates.js';
import { workerFile, WorkerPool } from './worker-pool.js';

export type RevocationReason =
  'unspecified' | 'keyCompromise' | 'superseded' | 'cessationOfOperation' | 'affiliationChanged';

export interface RevokedCertificate {
  readonly serial: string;
  /** A date, or its epoch milliseconds (a list read from the database makes no Date objects). */
  readonly revokedAt: Date | number;
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
 * at 10,000 of them, is encoded in a worker thread (crl-tbs.ts); only the signature over it is
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
    ...(await entryColumns(revoked)),
  });
  const signature = await engine.signWithPrivateKey(tbs, signer.privateKey, parameters);
  const der = derSequence([
    Buffer.from(tbs),
    Buffer.from(signatureAlgorithm.toSchema().toBER(false)),
    Buffer.from(new asn1js.BitString({ valueHex: signature }).toBER(false)),
  ]);
  return { pem: encodePem('X509 CRL', der), der };
}

/** The CRL's thread, started at the first CRL and kept: idle, it keeps no process alive. */
let tbsWorker: WorkerPool<TbsJob, ArrayBuffer> | undefined;

/**
 * Encodes a CRL's TBSCertList (DER) in a worker thread (workers/crl-tbs.worker.ts): with 10,000
 * revoked certificates this is seconds of JavaScript that would otherwise hold the event loop.
 * The thread is kept between CRLs: one started per CRL cost its start-up each time (under the
 * test runner, loading TypeScript too). A bad serial rejects with its TypeError.
 */
function encodeTbsInWorker(job: TbsJob): Promise<ArrayBuffer> {
  tbsWorker ??= new WorkerPool<TbsJob, ArrayBuffer>({
    file: workerFile('./workers/crl-tbs.worker', import.meta.url),
    size: 1,
    name: 'CRL',
  });
  return tbsWorker.run(job, [
    job.revokedAt.buffer as ArrayBuffer,
    job.reasons.buffer as ArrayBuffer,
  ]);
}

// Entries read per turn of the event loop while the worker's input is gathered.
const ENTRIES_PER_TURN = 4_096;

/**
 * The entries as the worker takes them: serials joined by newlines, dates and reason codes in
 * typed arrays. Gathered a slice per turn of the event loop: at 100,000 entries, one pass held
 * the loop for about 100 ms.
 */
async function entryColumns(revoked: readonly RevokedCertificate[]) {
  const serials: string[] = new Array<string>(revoked.length);
  const revokedAt = new Float64Array(revoked.length);
  const reasons = new Int8Array(revoked.length);
  for (let start = 0; start < revoked.length; start += ENTRIES_PER_TURN) {
    if (start > 0) await nextTurn();
    const end = Math.min(start + ENTRIES_PER_TURN, revoked.length);
    for (let index = start; index < end; index += 1) {
      const entry = revoked[index] as RevokedCertificate;
      if (entry.serial.includes('\n')) {
        throw new TypeError(`not a hexadecimal serial number: ${JSON.stringify(entry.serial)}`);
      }
      serials[index] = entry.serial;
      revokedAt[index] =
        typeof entry.revokedAt === 'number' ? entry.revokedAt : entry.revokedAt.getTime();
      reasons[index] = reasonCode(entry.reason);
    }
  }
  return { serials: serials.join('\n'), revokedAt, reasons };
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
