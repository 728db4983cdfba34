import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { RevocationReason } from './crl.js';
import { readOcspRequest, type RequestedCertId } from './ocsp-request.js';
import { SignatureBudget } from './signature-budget.js';
import type { CaSigner } from './signer.js';

export type OcspCertificateStatus =
  | { readonly status: 'good' }
  | { readonly status: 'revoked'; readonly revokedAt: Date; readonly reason?: RevocationReason }
  | { readonly status: 'unknown' };

/** Looks a serial (normalised, see `normalizeSerial`) up in the record of issued certificates. */
export type OcspLookup = (serial: string) => Promise<OcspCertificateStatus>;

export type OcspErrorStatus = 'malformedRequest' | 'internalError' | 'tryLater' | 'unauthorized';

const OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';
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
// The hash algorithms a CertID may use, by OID (its DER content bytes, hex): 1.3.14.3.2.26 (what
// Java's and openssl's OCSP clients send) and 2.16.840.1.101.3.4.2.1. Any other is `unauthorized`.
const CERT_ID_HASHES: Record<string, string> = {
  '2b0e03021a': 'sha1',
  '608648016503040201': 'sha256',
};
// How long a client may rely on an answer (nextUpdate). A revocation does not wait for it on this
// side: the record is read on every request and a changed status is signed anew at once.
export const RESPONSE_VALIDITY_MS = 60 * 60_000;
// A cached answer is signed again once half its validity is gone, so none handed out is stale.
const REFRESH_AFTER_MS = RESPONSE_VALIDITY_MS / 2;
const MAX_REQUESTS = 16;
const MAX_CACHED_ANSWERS = 10_000;
// Answers not yet cached are signed one at a time; past this many waiting, `tryLater`.
const MAX_WAITING_SIGNATURES = 32;
/** New signatures (answers not served from memory) one client address may cause at once... */
export const OCSP_NEW_SIGNATURES_BURST = 100;
/** ...and per second after that. */
export const OCSP_NEW_SIGNATURES_PER_SECOND = 10;

/** Why an answer was `tryLater`: its address's share of new signatures, or the signing queue. */
export type OcspRefusal = 'address_budget' | 'queue_full';

export interface OcspResponderOptions {
  /** The CA whose certificates this responder answers for. */
  readonly issuer: CaSigner;
  /** The delegated OCSP signer of `issuer` (ocsp-signer.ts), renewed by whoever provides it. */
  readonly signer: () => Promise<CaSigner>;
  readonly now: () => Date;
}

interface CachedAnswer {
  readonly der: Buffer;
  readonly signer: CaSigner;
  readonly refreshAt: number;
  /** The statuses it gives (`statusKey`): a changed one is signed anew. */
  readonly statuses: string;
}

/** A status this responder signs: a serial it never issued is answered `unauthorized` instead. */
type AnsweredStatus = Exclude<OcspCertificateStatus, { status: 'unknown' }>;

/**
 * An RFC 6960 / RFC 5019 OCSP responder whose answers cost no private-key operation once made:
 * each answer is signed once per certificate asked about (its CertID in one form: the serial
 * without padding, SHA-1 or SHA-256) and status by the delegated signer, and served from memory
 * until the status changes, the signer is renewed or half its validity is gone. Statuses are
 * looked up on every request, so a revocation made by any instance sharing the database is
 * answered on the next request. Nothing is signed for a serial this CA never issued, another
 * issuer's or another hash algorithm: `unauthorized` (RFC 5019 2.2.3) needs no signature, and only
 * answers about its own certificates are cached, so strangers cannot push them out. New
 * signatures are bounded per client address. Nonces are not echoed (RFC 5019 2.1: a cached
 * answer cannot); docs/api.md says why. Errors from `lookup` propagate.
 */
export class OcspResponder {
  private readonly answers = new Map<string, CachedAnswer>();
  private readonly inFlight = new Map<string, Promise<CachedAnswer>>();
  private readonly signatures = new OneAtATime(MAX_WAITING_SIGNATURES);
  private readonly budget: SignatureBudget;
  private readonly issuer: ReturnType<typeof issuerHashes>;
  private signed = 0;
  private readonly refused: Record<OcspRefusal, number> = { address_budget: 0, queue_full: 0 };

  constructor(private readonly options: OcspResponderOptions) {
    this.issuer = issuerHashes(options.issuer);
    this.budget = new SignatureBudget({
      burst: OCSP_NEW_SIGNATURES_BURST,
      perSecond: OCSP_NEW_SIGNATURES_PER_SECOND,
      now: options.now,
    });
  }

  /** Answers signed since this responder was made: one private-key signature each. */
  get signedAnswers(): number {
    return this.signed;
  }

  /** Requests answered `tryLater` since this responder was made, by why. */
  get refusals(): Readonly<Record<OcspRefusal, number>> {
    return { ...this.refused };
  }

  /** Whether `certId` asks about a certificate of this responder's issuer. */
  answersFor(certId: RequestedCertId): boolean {
    return this.issuer.matches(certId);
  }

  /**
   * Answers `requestDer`. A request from `clientAddress` that needs a new signature spends one of
   * that address's share (none without an address: the portal asking itself).
   */
  async respond(requestDer: Buffer, lookup: OcspLookup, clientAddress?: string): Promise<Buffer> {
    const certIds = readOcspRequest(requestDer);
    if (certIds === undefined || certIds.length === 0 || certIds.length > MAX_REQUESTS) {
      return ocspErrorResponse('malformedRequest');
    }
    if (!certIds.every((certId) => this.issuer.matches(certId))) {
      return ocspErrorResponse('unauthorized');
    }
    const found = await Promise.all(certIds.map((certId) => lookup(certId.serial)));
    const statuses = found.filter(
      (status): status is AnsweredStatus => status.status !== 'unknown',
    );
    if (statuses.length !== certIds.length) return ocspErrorResponse('unauthorized');
    const forms = certIds.map(canonicalCertId);
    const key = forms.map((der) => der.toString('base64')).join(',');
    const statusesKey = statuses.map(statusKey).join(',');
    const signer = await this.options.signer();
    const cached = this.answers.get(key);
    if (
      cached?.statuses === statusesKey &&
      cached.signer === signer &&
      this.options.now().getTime() < cached.refreshAt
    ) {
      return cached.der;
    }
    const signingKey = `${key}=${statusesKey}`;
    let signing = this.inFlight.get(signingKey);
    if (signing === undefined) {
      const refusal = this.refusal(clientAddress);
      if (refusal !== undefined) {
        this.refused[refusal]++;
        return ocspErrorResponse('tryLater');
      }
      const queued = this.signatures.run(() => this.sign(signer, forms, statuses, statusesKey));
      if (queued === undefined) {
        this.refused.queue_full++;
        return ocspErrorResponse('tryLater');
      }
      signing = queued.finally(() => this.inFlight.delete(signingKey));
      this.inFlight.set(signingKey, signing);
    }
    const answer = await signing;
    // One certificate per request is what Java and RFC 5019 send; a combination is not kept.
    if (certIds.length === 1) this.remember(key, answer);
    return answer.der;
  }

  private refusal(clientAddress: string | undefined): OcspRefusal | undefined {
    if (this.signatures.full) return 'queue_full';
    if (clientAddress !== undefined && !this.budget.take(clientAddress)) return 'address_budget';
    return undefined;
  }

  private async sign(
    signer: CaSigner,
    certIds: readonly Buffer[],
    statuses: readonly AnsweredStatus[],
    statusesKey: string,
  ): Promise<CachedAnswer> {
    const producedAt = wholeSeconds(this.options.now());
    const basic = new pkijs.BasicOCSPResponse({
      tbsResponseData: new pkijs.ResponseData({
        responderID: new asn1js.OctetString({ valueHex: publicKeyHash(signer.certificate) }),
        producedAt,
        responses: certIds.map(
          (certId, i) =>
            new pkijs.SingleResponse({
              certID: pkijs.CertID.fromBER(new Uint8Array(certId)),
              certStatus: encodeStatus(statuses[i] ?? { status: 'good' }),
              thisUpdate: producedAt,
              nextUpdate: new Date(producedAt.getTime() + RESPONSE_VALIDITY_MS),
            }),
        ),
      }),
      // The signer and its issuer, so that a relying party holding only the root builds the path.
      certs: [signer.certificate, this.options.issuer.certificate].map((certificate) =>
        pkijs.Certificate.fromBER(new Uint8Array(certificate.rawData)),
      ),
    });
    const engine = new pkijs.CryptoEngine({ name: 'ocsp-signer', crypto: signer.crypto });
    await basic.sign(signer.privateKey, signer.signingAlgorithm.hash, engine);
    this.signed++;
    return {
      der: encodeResponse(RESPONSE_STATUS.successful, basic),
      signer,
      refreshAt: producedAt.getTime() + REFRESH_AFTER_MS,
      statuses: statusesKey,
    };
  }

  private remember(key: string, answer: CachedAnswer): void {
    // Re-inserted last: the map's order is then the order of use, and the first is evicted.
    this.answers.delete(key);
    this.answers.set(key, answer);
    if (this.answers.size > MAX_CACHED_ANSWERS) {
      const oldest = this.answers.keys().next();
      if (oldest.done !== true) this.answers.delete(oldest.value);
    }
  }
}

/** Runs tasks one at a time; undefined instead of a promise when `maxWaiting` already wait. */
class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly maxWaiting: number) {}

  get full(): boolean {
    return this.waiting >= this.maxWaiting;
  }

  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.full) return undefined;
    this.waiting++;
    const result = this.tail.then(task).finally(() => {
      this.waiting--;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
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

/** The name and key hashes a CertID about `issuer`'s certificates carries, in every algorithm. */
function issuerHashes(issuer: CaSigner) {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(issuer.certificate.rawData));
  const name = certificate.subject.toSchema().toBER(false);
  const key = certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
  const expected = new Map(
    Object.entries(CERT_ID_HASHES).map(([oid, algorithm]) => [
      oid,
      {
        name: createHash(algorithm).update(new Uint8Array(name)).digest(),
        key: createHash(algorithm).update(key).digest(),
      },
    ]),
  );
  return {
    matches(certId: RequestedCertId): boolean {
      const hashes = expected.get(certId.hashOid);
      return (
        hashes !== undefined &&
        hashes.name.equals(certId.issuerNameHash) &&
        hashes.key.equals(certId.issuerKeyHash)
      );
    },
  };
}

/** RFC 6960 4.2.1 ResponderID byKey: SHA-1 of the signer's public key (the BIT STRING's bytes). */
function publicKeyHash(certificate: CaSigner['certificate']): Buffer {
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(certificate.rawData));
  return createHash('sha1')
    .update(parsed.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)
    .digest();
}

function statusKey(status: AnsweredStatus): string {
  if (status.status !== 'revoked') return status.status;
  return `revoked@${status.revokedAt.getTime()}:${status.reason ?? ''}`;
}

/**
 * The one form of a CertID this responder answers in: the algorithm as asked (the OID, with a
 * NULL or without), the issuer's hashes, and the serial as DER has it (no padding). Java compares
 * serials as numbers, so a padded question accepts it.
 */
function canonicalCertId(certId: RequestedCertId): Buffer {
  let serial = Buffer.from(certId.serial, 'hex');
  if ((serial[0] ?? 0) >= 0x80) serial = Buffer.concat([Buffer.from([0]), serial]);
  return Buffer.from(
    new asn1js.Sequence({
      value: [
        asn1js.fromBER(new Uint8Array(certId.algorithm)).result,
        new asn1js.OctetString({ valueHex: new Uint8Array(certId.issuerNameHash) }),
        new asn1js.OctetString({ valueHex: new Uint8Array(certId.issuerKeyHash) }),
        new asn1js.Integer({ valueHex: new Uint8Array(serial) }),
      ],
    }).toBER(false),
  );
}

// CertStatus ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] }:
// unknown is never signed (a serial this CA never issued is `unauthorized`).
function encodeStatus(status: AnsweredStatus): asn1js.BaseBlock {
  switch (status.status) {
    case 'good':
      return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
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
