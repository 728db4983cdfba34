import { X509Certificate } from 'node:crypto';
import { TYPED_LINE, type TrustPackageClient } from '@callsign/contract';
import { BadCsrError, checkCsr } from '../../ca/csr.js';
import { BadRequestError, HttpError } from '../../errors.js';
import { encodePem } from '../../ca/pem.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from '../../ca/pkcs12-jobs.js';
import { buildTakEnrollmentProfile, buildTrustPackage } from '../../tak/tak-enrollment-packages.js';
import { csrDerFromBody, type TakEnrollmentAnswer } from '../../tak/tak-enrollment.js';
import { takEnrollmentTrust } from '../../tak/truststore.js';
import type { CertificateService } from '../certificates/service.js';
import type { TakSiteSettings } from './settings.js';
import type {
  TakCredentials,
  TakEnrollmentLogin,
  TakEnrollmentTokens,
} from './tak-enrollment-tokens.js';
import { sameCallsign } from '../people/callsign.js';

/** How a `signClient/v2` answer is written, by the request's `Accept`. */
export type AnswerFormat = 'json' | 'xml' | 'json-as-text';

/**
 * The answer's form, matched by substring as TAK Server does (real clients send lists with
 * q-values): none, empty, `*\/*` or `application/json` → JSON; else `application/xml` → XML;
 * else `text/plain` → the JSON typed `text/plain` (what the iOS clients accept as well). Undefined
 * for anything else (406, before the token is spent).
 */
export function answerFormat(accept: string | undefined): AnswerFormat | undefined {
  const wanted = (accept ?? '').toLowerCase().trim();
  if (wanted === '' || wanted.includes('*/*') || wanted.includes('application/json')) return 'json';
  if (wanted.includes('application/xml')) return 'xml';
  if (wanted.includes('text/plain')) return 'json-as-text';
  return undefined;
}

export class NotAcceptableError extends HttpError {
  constructor() {
    super(406, 'Accept application/json or application/xml');
  }
}

/**
 * A device's id or version (query parameter `name`) as the client sends it, at most 255
 * characters; null when not sent. Admins read it (keys, audit), so it is typed text like any
 * other: 400, the token unspent, for a control, bidi or invisible character.
 */
export function deviceField(name: string, value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  if (!TYPED_LINE.test(value)) throw new BadRequestError(`${name}: no control characters`);
  return value.slice(0, 255);
}

/** The answer headers of a token endpoint (RFC 6749 §5.1), on its refusals as on its tokens. */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** A request `/oauth/token` refuses before any login, in OAuth's shape (RFC 6749 §5.2): 400. */
export class OAuthRequestError extends HttpError {
  constructor(error: 'invalid_request' | 'unsupported_grant_type', description: string) {
    super(400, description, { ...NO_STORE }, { error, error_description: description });
  }
}

/**
 * The callsign and token of TAK Server's password grant (`grant_type=password`, `username`,
 * `password`): from a form body, or from the query, which TAK Server reads as well and where
 * node-tak sends them. 400 in OAuth's shape for another grant or a missing field; these are no
 * guesses, so they cost no failure budget.
 */
export function passwordGrant(
  query: Record<string, unknown>,
  body: string,
  contentType: string | undefined,
): TakCredentials {
  const form = (contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(body)
    : new URLSearchParams();
  const field = (name: string): string => {
    const inQuery = query[name];
    return form.get(name) ?? (typeof inQuery === 'string' ? inQuery : '');
  };
  if (field('grant_type') !== 'password') {
    throw new OAuthRequestError('unsupported_grant_type', 'OAuth 2.0 Parameter: grant_type');
  }
  const username = field('username').trim();
  const password = field('password').trim();
  if (username === '')
    throw new OAuthRequestError('invalid_request', 'OAuth 2.0 Parameter: username');
  if (password === '')
    throw new OAuthRequestError('invalid_request', 'OAuth 2.0 Parameter: password');
  return { username, password };
}

export interface Device {
  clientUid: string | null;
  version: string | null;
  clientAddress: string | null;
}

/**
 * Signs a TAK client's own key for the member it logged in as: the request's
 * CN must be the callsign, its signature must hold and its key be one this CA signs (400, the
 * token unspent, otherwise); the certificate is issued through the one issuing call with purpose
 * `tak-enroll` and the device's id, and the token is spent in the transaction that records it.
 */
/** How long one build of the unnamed trust package is handed out (it changes only with the CAs). */
export const UNNAMED_TRUST_PACKAGE_TTL_MS = 60_000;

export class TakEnrollment {
  constructor(
    private readonly tokens: TakEnrollmentTokens,
    private readonly certificates: CertificateService,
    private readonly settings: TakSiteSettings,
    /** Where the trust package's truststore is packed: the service's worker threads, or here. */
    private readonly packing: Pkcs12Packing = PACK_ON_THIS_THREAD,
  ) {}

  async sign(
    login: TakEnrollmentLogin,
    body: string,
    device: Device,
  ): Promise<TakEnrollmentAnswer> {
    let publicKey;
    try {
      const csr = await checkCsr(csrDerFromBody(body));
      if (
        csr.commonNames.length === 0 ||
        csr.commonNames.some((name) => !sameCallsign(name, login.callsign))
      ) {
        throw new BadCsrError(`the request’s CN must be your callsign, ${login.callsign}`);
      }
      publicKey = csr.publicKey;
    } catch (error) {
      if (error instanceof BadCsrError) throw new BadRequestError(`Bad CSR: ${error.message}`);
      throw error;
    }
    const issued = await this.certificates.issueForMember({
      callsign: login.callsign,
      purpose: 'tak-enroll',
      // As TAK Server's signClient/v2: the channels EKU for a client that says its version.
      key: { publicKey, takChannels: device.version !== null },
      actor: {
        callsign: login.callsign,
        clientAddress: device.clientAddress,
        ...(login.madeBy === null ? {} : { madeBy: login.madeBy }),
      },
      audit: {
        action: 'tak.enroll',
        detail: { client_uid: device.clientUid, version: device.version },
      },
      ...(device.clientUid === null ? {} : { clientUid: device.clientUid }),
      alongside: (trx, certificate) =>
        this.tokens.spend(trx, login, { clientUid: device.clientUid, serial: certificate.serial }),
    });
    return {
      signedCert: new X509Certificate(issued.certificatePem).raw,
      cas: await this.caCertificates(),
    };
  }

  /** The CAs a client stores with its certificate (tak/truststore.ts, takEnrollmentTrust). */
  caCertificates(): Promise<Buffer[]> {
    return takEnrollmentTrust({
      pemFile: this.settings.truststorePemFile,
      caChainPem: this.certificates.trustPem,
    });
  }

  /** The member's profile package, once their token has signed; undefined before (204). */
  profile(login: TakEnrollmentLogin): Uint8Array | undefined {
    if (!login.spent) return undefined;
    return buildTakEnrollmentProfile({
      takHost: this.settings.takHost,
      deployment: this.settings.deployment,
      callsign: login.callsign,
      preset: login.preset,
    });
  }

  /**
   * The trust package of a member: the connection that enrolls by itself, and a
   * truststore with the same CAs an enrollment answers (they validate the enrollment face and the
   * TAK server). No key: it is not a credential.
   */
  /** The unnamed trust package last built per client flavour, and when (monotonic ms). */
  private readonly unnamed = new Map<
    TrustPackageClient,
    { builtAt: number; zip: Promise<Uint8Array> }
  >();

  /**
   * The trust package without a user name (ATAK then asks for both user name and code): nothing
   * in it is personal or secret (the CA certificates are public files, the TAK host public), so
   * anyone may have it, as a phone that scanned its address off a laptop's screen. Anyone may
   * ask, and building the truststore costs tens of milliseconds of CPU, so one build per client
   * flavour serves every caller for `UNNAMED_TRUST_PACKAGE_TTL_MS` (a failed build is not kept).
   */
  unnamedTrustPackage(client: TrustPackageClient): Promise<Uint8Array> {
    const now = performance.now();
    const kept = this.unnamed.get(client);
    if (kept !== undefined && now - kept.builtAt < UNNAMED_TRUST_PACKAGE_TTL_MS) return kept.zip;
    const zip = this.trustPackage('', client);
    const built = { builtAt: now, zip };
    this.unnamed.set(client, built);
    zip.catch(() => {
      if (this.unnamed.get(client) === built) this.unnamed.delete(client);
    });
    return zip;
  }

  async trustPackage(callsign: string, client: TrustPackageClient): Promise<Uint8Array> {
    const truststore = await this.packing.trustStore({
      certificatesPem: (await this.caCertificates()).map((der) => encodePem('CERTIFICATE', der)),
      password: this.settings.truststorePassword,
      friendlyNamePrefix: this.settings.deployment,
    });
    return buildTrustPackage({
      takHost: this.settings.takHost,
      takPort: this.settings.takPort,
      deployment: this.settings.deployment,
      callsign,
      truststore,
      truststorePassword: this.settings.truststorePassword,
      client,
    });
  }
}
