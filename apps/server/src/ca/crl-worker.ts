import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * What the worker needs to encode a CRL's to-be-signed part: everything but the CA's key, which
 * stays on this thread (it may be an HSM's key that cannot leave its provider).
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

const requireHere = createRequire(import.meta.url);

/**
 * The worker's program, evaluated as a plain CommonJS script (`eval: true`), so that the same
 * source runs under the test runner, which loads this module from TypeScript, and from the build.
 * It imports pkijs and asn1js by the file URLs resolved here (both are ES modules), builds the
 * TBSCertList entry by entry (linear: @peculiar/x509's generator compares each entry with all
 * earlier ones) and posts its DER back. Serials are normalised as `normalizeSerial` does.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const pkijs = await import(workerData.pkijsUrl);
  const asn1js = await import(workerData.asn1jsUrl);
  const job = workerData.job;
  const time = (ms) => new pkijs.Time({
    type: new Date(ms).getUTCFullYear() < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime,
    value: new Date(Math.floor(ms / 1000) * 1000),
  });
  const serials = job.serials === '' ? [] : job.serials.split('\\n');
  const entries = serials.map((written, index) => {
    const digits = written.replace(/[\\s:]/g, '').toLowerCase();
    if (!/^[0-9a-f]+$/.test(digits)) {
      throw new TypeError('not a hexadecimal serial number: ' + JSON.stringify(written));
    }
    let hex = digits.replace(/^0+/, '') || '00';
    if (hex.length % 2 === 1) hex = '0' + hex;
    // A positive INTEGER: a leading 1 bit needs a zero byte before it.
    if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex;
    const reason = job.reasons[index];
    return new pkijs.RevokedCertificate({
      userCertificate: new asn1js.Integer({ valueHex: Buffer.from(hex, 'hex') }),
      revocationDate: time(job.revokedAt[index]),
      ...(reason < 0 ? {} : {
        crlEntryExtensions: new pkijs.Extensions({ extensions: [new pkijs.Extension({
          extnID: '2.5.29.21',
          critical: false,
          extnValue: new asn1js.Enumerated({ value: reason }).toBER(),
        })] }),
      }),
    });
  });
  const algorithm = pkijs.AlgorithmIdentifier.fromBER(job.signatureAlgorithmDer);
  const crl = new pkijs.CertificateRevocationList({
    version: 1,
    signature: algorithm,
    issuer: pkijs.Certificate.fromBER(job.issuerDer).subject,
    thisUpdate: time(job.thisUpdate),
    nextUpdate: time(job.nextUpdate),
    crlExtensions: new pkijs.Extensions({
      extensions: job.crlExtensionsDer.map((der) => pkijs.Extension.fromBER(der)),
    }),
  });
  if (entries.length > 0) crl.revokedCertificates = entries;
  const tbs = crl.encodeTBS().toBER(false);
  parentPort.postMessage(tbs, [tbs]);
})().catch((error) => {
  parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
});
`;

/**
 * Encodes a CRL's TBSCertList (DER) in a worker thread of its own, which ends when it is done:
 * with 10,000 revoked certificates this is seconds of JavaScript that would otherwise hold the
 * event loop. A failure rejects with its message (a TypeError: the input was bad).
 */
export function encodeTbsInWorker(job: TbsJob): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pkijsUrl: pathToFileURL(requireHere.resolve('pkijs')).href,
        asn1jsUrl: pathToFileURL(requireHere.resolve('asn1js')).href,
        job,
      },
      transferList: [job.revokedAt.buffer as ArrayBuffer, job.reasons.buffer as ArrayBuffer],
    });
    let settled = false;
    worker.once('message', (answer: ArrayBuffer | { error: string }) => {
      settled = true;
      if (answer instanceof ArrayBuffer) resolve(answer);
      else reject(new TypeError(answer.error));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled)
        reject(new Error(`the CRL worker stopped (exit code ${code}) without an answer`));
    });
  });
}
