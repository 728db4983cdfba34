import { webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import path from 'node:path';
import {
  CA_CHAIN_FILE,
  CaDirectoryError,
  caFilePath,
  readCaFiles,
  writeCaFiles,
} from './ca-files.js';
import { signCrl, type EncodedCrl, type RevokedCertificate } from './crl.js';
import { createCaMaterial } from './hierarchy.js';
import {
  acceptedPublicKeyType,
  createKeyPair,
  privateKeyToPkcs8Pem,
  type GeneratedKeyPair,
  type KeyAlgorithm,
  type PublicKeyType,
} from './key-pair.js';
import { OcspResponder, type OcspLookup, type OcspRefusal } from './ocsp.js';
import { isOcspSignerCurrent, loadOrIssueOcspSigner } from './ocsp-signer.js';
import { signLeaf, type LeafOrder, type LeafSigning } from './leaf.js';
import { decodePemBlocks, encodePem } from './pem.js';
import { FileKeySigner, type CaSigner } from './signer.js';
import {
  LEAF_BACKDATE_MS,
  MAX_SERVER_VALIDITY_DAYS,
  publicationUrls,
  type LeafProfile,
  type PublicationUrls,
} from './templates.js';
import { readOcspRequest } from './ocsp-request.js';

// This module passes its WebCrypto explicitly; the default serves other users of @peculiar/x509.
x509.cryptoProvider.set(webcrypto);

/** A certificate signed for a key made elsewhere (a device's): no private key here. */
export interface SignedCertificate {
  /** Lowercase hex, as `normalizeSerial` gives it. */
  readonly serial: string;
  readonly commonName: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly certificatePem: string;
  /** Issuing CA, then each CA above it up to the self-signed root (`CertificateAuthority.chainPem`). */
  readonly chainPem: string[];
  /** Which issuing CA signed it: 1 the CA directory's, n ≥ 2 a rollover's (`useIssuers`). */
  readonly caGeneration: number;
}

/** A certificate with the key pair made for it here. */
export interface IssuedCertificate extends SignedCertificate {
  /** PKCS#8, unencrypted: held in memory only, for the PKCS#12 that carries it away. */
  readonly privateKeyPem: string;
}

export interface CertificateAuthorityOptions {
  readonly dir: string;
  /**
   * Where relying parties fetch the CA's files, e.g. `http://portal.example.org`: the CRL, OCSP
   * and caIssuers URLs written into certificates hang off it. The portal passes plain http
   * (docs/api.md, `config.httpCaOrigin`); its host name also names the CA at creation.
   */
  readonly publicBaseUrl: string;
  /** Encrypts both CA keys on disk (AES-256-CBC PKCS#8); required to load them afterwards. */
  readonly passphrase?: string;
  readonly now?: () => Date;
  /**
   * How far before the moment of issue a leaf becomes valid (`PORTAL_CERT_BACKDATE_MINUTES`;
   * default LEAF_BACKDATE_MS, 12 hours, TAK Server's value), for devices with a slow clock.
   */
  readonly leafBackdateMs?: number;
}

const DAY_MS = 86_400_000;

/** An issuing CA made by a rollover (`ca rollover begin`), as the database keeps it. */
export interface RolloverIssuer {
  /** 2 for the first rollover's, and so on; the CA directory's own issuing CA is 1. */
  readonly generation: number;
  readonly certificatePem: string;
  /** PKCS#8 PEM, encrypted with the CA passphrase when one is set. */
  readonly keyPem: string;
}

/** One issuing CA this authority signs with or answers for. */
interface Issuer {
  readonly generation: number;
  readonly signer: CaSigner;
  readonly urls: PublicationUrls;
  readonly ocsp: OcspResponder;
  /** Issuing CA, then each CA above it, the self-signed root last; each once. */
  readonly chain: x509.X509Certificate[];
  ocspSigner: Promise<CaSigner> | undefined;
}

export class CertificateAuthority {
  /** Every issuing CA, oldest first; the last signs new keys. */
  private issuers: Issuer[];
  /** Whether the issuing CA before the last is still trusted (a rollover under way). */
  private overlap = false;
  /** `trustPem`, made again whenever the issuing CAs change (the same string until then). */
  private trust = '';

  private constructor(
    private readonly root: x509.X509Certificate,
    /** The CAs above `root` when it is an adopted intermediate (ca-chain.pem), root last. */
    private readonly above: x509.X509Certificate[],
    issuing: CaSigner,
    private readonly baseUrl: URL,
    private readonly now: () => Date,
    private readonly files: { dir: string; passphrase: string | undefined },
    private readonly leafBackdateMs: number,
  ) {
    this.issuers = [this.issuerOf(1, issuing)];
    this.trust = this.makeTrustPem();
  }

  private issuerOf(generation: number, signer: CaSigner): Issuer {
    const issuer: Issuer = {
      generation,
      signer,
      urls: publicationUrls(this.baseUrl, generation),
      chain: [signer.certificate, this.root, ...this.above].filter(
        (certificate, i, all) => i === 0 || !certificate.equal(all[i - 1] as x509.X509Certificate),
      ),
      ocspSigner: undefined,
      ocsp: new OcspResponder({
        issuer: signer,
        signer: () => this.ocspSignerOf(issuer),
        now: this.now,
      }),
    };
    return issuer;
  }

  private get current(): Issuer {
    return this.issuers.at(-1) as Issuer;
  }

  /**
   * Takes on the issuing CAs rollovers made (`ca rollover begin`, kept in the database, oldest
   * first): the newest signs new keys from now on; while `overlap`, the one before it is trusted
   * still (in `trustPem`). Every one, retired or not, still signs its CRL and answers OCSP for
   * its keys. Each must be signed by the root; nothing changes when one is not (CaDirectoryError).
   */
  async useIssuers(rollovers: readonly RolloverIssuer[], overlap: boolean): Promise<void> {
    const known = new Map(this.issuers.map((issuer) => [issuer.generation, issuer]));
    const next: Issuer[] = [this.issuers[0] as Issuer];
    for (const rollover of [...rollovers].sort((a, b) => a.generation - b.generation)) {
      const existing = known.get(rollover.generation);
      if (existing !== undefined) {
        next.push(existing);
        continue;
      }
      const signer = await FileKeySigner.fromPem({
        certificatePem: rollover.certificatePem,
        privateKeyPem: rollover.keyPem,
        passphrase: this.files.passphrase,
        label: `the database's issuing CA ${rollover.generation}`,
      });
      if (!(await signedBy(signer.certificate, this.root))) {
        throw new CaDirectoryError(
          `issuing CA ${rollover.generation} in the database is not signed by ` +
            caFilePath(this.files.dir, 'rootCertificate'),
        );
      }
      next.push(this.issuerOf(rollover.generation, signer));
    }
    const wasOverlap = this.overlap;
    this.issuers = next;
    this.overlap = overlap && next.length > 1;
    if (next.length !== known.size || wasOverlap !== this.overlap) this.trust = this.makeTrustPem();
  }

  /** Which issuing CA signs new keys: 1 the CA directory's, n ≥ 2 a rollover's. */
  get generation(): number {
    return this.current.generation;
  }

  /** Every issuing CA's generation, oldest first (retired ones too: their CRLs and OCSP). */
  get generations(): number[] {
    return this.issuers.map((issuer) => issuer.generation);
  }

  /** The issuing CAs relying parties trust now: the current one, and during a rollover the one before. */
  get trustedGenerations(): number[] {
    return this.issuers
      .slice(this.overlap ? -2 : -1)
      .map((issuer) => issuer.generation)
      .reverse();
  }

  /** Issuing CA `generation`'s certificate (PEM); undefined for one this authority does not hold. */
  issuingCertificatePemOf(generation: number): string | undefined {
    const issuer = this.issuers.find((candidate) => candidate.generation === generation);
    return issuer && encodePem('CERTIFICATE', issuer.signer.certificate.rawData);
  }

  /** Loads the CA from `dir`, creating a new two-tier CA there on first use. */
  static async loadOrCreate(options: CertificateAuthorityOptions): Promise<CertificateAuthority> {
    const { dir, passphrase } = options;
    const now = options.now ?? (() => new Date());
    if (passphrase === '') throw new CaDirectoryError('the CA passphrase must not be empty');
    const baseUrl = parseBaseUrl(options.publicBaseUrl);
    let material = await readCaFiles(dir);
    if (material === undefined) {
      const organization = baseUrl.hostname;
      await writeCaFiles(dir, await createCaMaterial({ organization, now: now(), passphrase }));
      material = await readCaFiles(dir);
      if (material === undefined) throw new CaDirectoryError(`${dir}: the new CA vanished`);
    }
    const root = new x509.X509Certificate(material.rootCertificate);
    // The root key stays on disk: it is only needed to create an issuing CA.
    const issuing = await FileKeySigner.fromPem({
      certificatePem: material.issuingCertificate,
      privateKeyPem: material.issuingKey,
      passphrase,
      label: caFilePath(dir, 'issuingKey'),
    });
    // An adopted CA that issues directly is both (adopt.ts).
    const issuesFromRootFile = issuing.certificate.equal(root);
    if (!issuesFromRootFile && !(await signedBy(issuing.certificate, root))) {
      throw new CaDirectoryError(
        `${caFilePath(dir, 'issuingCertificate')} is not signed by ${caFilePath(dir, 'rootCertificate')}`,
      );
    }
    const above = certificatesIn(material.chain ?? '');
    for (const [i, certificate] of [root, ...above].entries()) {
      const issuer = above[i] ?? certificate;
      if (
        !(await signedBy(certificate, issuer)) ||
        (above[i] === undefined && !isSelfSigned(certificate))
      ) {
        throw new CaDirectoryError(
          `${path.join(dir, CA_CHAIN_FILE)} does not lead from ${certificate.subject} to a self-signed root`,
        );
      }
    }
    const leafBackdateMs = options.leafBackdateMs ?? LEAF_BACKDATE_MS;
    if (!Number.isInteger(leafBackdateMs) || leafBackdateMs < 0) {
      throw new RangeError(`leafBackdateMs must be a whole number ≥ 0, not ${leafBackdateMs}`);
    }
    return new CertificateAuthority(
      root,
      above,
      issuing,
      baseUrl,
      now,
      { dir, passphrase },
      leafBackdateMs,
    );
  }

  get rootCertificatePem(): string {
    return encodePem('CERTIFICATE', this.root.rawData);
  }

  /** The issuing CA that signs new keys (the newest, after a rollover began). */
  get issuingCertificatePem(): string {
    return encodePem('CERTIFICATE', this.current.signer.certificate.rawData);
  }

  /** The self-signed root at the top of the chain (the adopted root's, for an adopted CA). */
  get topCertificatePem(): string {
    return encodePem('CERTIFICATE', (this.current.chain.at(-1) ?? this.root).rawData);
  }

  /** Whether the certificate that signs members is the root (an adopted root that issues directly). */
  get issuesFromRoot(): boolean {
    return this.current.chain.length === 1;
  }

  /**
   * What a relying party trusts, served at `/ca/ca.pem` and put in every truststore: the current
   * issuing CA, during a rollover the one before it too, then every CA above them up to the
   * self-signed root, each once. Without a rollover, `chainPem`.
   */
  get trustPem(): string {
    return this.trust;
  }

  /** The issuing CAs whose keys relying parties accept now, newest first (see `trustPem`). */
  trustedIssuingCertificatesPem(): string[] {
    return this.issuers
      .slice(this.overlap ? -2 : -1)
      .reverse()
      .map((issuer) => encodePem('CERTIFICATE', issuer.signer.certificate.rawData));
  }

  private makeTrustPem(): string {
    const trusted = this.issuers.slice(this.overlap ? -2 : -1).reverse();
    const certificates = [
      ...trusted.map((issuer) => issuer.signer.certificate),
      ...this.current.chain.slice(1),
    ];
    return certificates
      .filter((certificate, i) => !certificates.slice(0, i).some((seen) => seen.equal(certificate)))
      .map((certificate) => encodePem('CERTIFICATE', certificate.rawData))
      .join('');
  }

  /**
   * The issuing CA then every CA above it up to the self-signed root, each once, as served at
   * `/ca/ca.pem`: the issuing CA then the root for the portal's own CA.
   */
  get chainPem(): string {
    return this.chainPemList().join('');
  }

  /** `chainPem` without the root: what a TLS peer sends after its own certificate. */
  get intermediatesPem(): string[] {
    return this.chainPemList().slice(0, -1);
  }

  chainDer(): Buffer[] {
    return this.current.chain.map((certificate) => Buffer.from(certificate.rawData));
  }

  private chainPemList(issuer: Issuer = this.current): string[] {
    return issuer.chain.map((certificate) => encodePem('CERTIFICATE', certificate.rawData));
  }

  /**
   * A client certificate for a member: `CN={callsign}`, clientAuth, with a fresh key pair: the
   * one given (made ahead, of `keyAlgorithm`, never used before; the key pool's), or one made now.
   * With `signing` (the service's worker threads) a file-key CA builds and signs it there.
   */
  async issueMemberCertificate(options: {
    callsign: string;
    validityDays: number;
    keyAlgorithm?: KeyAlgorithm;
    keyPair?: GeneratedKeyPair;
    signing?: LeafSigning;
  }): Promise<IssuedCertificate> {
    return this.issue(
      options.callsign,
      options.validityDays,
      'client',
      {
        keyAlgorithm: options.keyAlgorithm ?? 'rsa-2048',
        ...(options.keyPair === undefined ? {} : { keyPair: options.keyPair }),
      },
      options.signing,
    );
  }

  /**
   * A client certificate for a member's key made elsewhere (the public key of a device's CSR):
   * the same profile as `issueMemberCertificate`, with TAK Server's channels EKU beside
   * clientAuth when `takChannels` (a TAK client that sent its `version`). Throws
   * UnsupportedPublicKeyError for a key this CA does not sign (`acceptedPublicKeyType`). With
   * `signing`, as `issueMemberCertificate`.
   */
  async signMemberCertificate(options: {
    callsign: string;
    validityDays: number;
    publicKey: KeyObject;
    takChannels?: boolean;
    signing?: LeafSigning;
  }): Promise<SignedCertificate> {
    const keyType = acceptedPublicKeyType(options.publicKey);
    const publicKeyDer = options.publicKey.export({ type: 'spki', format: 'der' });
    return this.sign(
      options.callsign,
      options.validityDays,
      publicKeyDer,
      {
        purpose: 'client',
        keyType,
        ...(options.takChannels === true ? { takChannels: true } : {}),
      },
      options.signing,
    );
  }

  /**
   * A TLS server certificate: CN = the first name, every name in subjectAltName, serverAuth and
   * clientAuth; MAX_SERVER_VALIDITY_DAYS (397) from not-before to not-after by default and at
   * most (RangeError for more), the limit phones hold server certificates to.
   */
  async issueServerCertificate(options: {
    dnsNames: string[];
    ipAddresses?: string[];
    validityDays?: number;
    keyAlgorithm?: KeyAlgorithm;
  }): Promise<IssuedCertificate> {
    const { dnsNames, ipAddresses = [] } = options;
    const commonName = dnsNames[0] ?? ipAddresses[0];
    if (commonName === undefined) {
      throw new TypeError('a server certificate needs at least one DNS name or IP address');
    }
    const validityDays = options.validityDays ?? MAX_SERVER_VALIDITY_DAYS;
    if (validityDays > MAX_SERVER_VALIDITY_DAYS) {
      throw new RangeError(
        `a server certificate lasts at most ${MAX_SERVER_VALIDITY_DAYS} days, not ${validityDays}`,
      );
    }
    return this.issue(commonName, validityDays, 'server', {
      keyAlgorithm: options.keyAlgorithm ?? 'rsa-2048',
      subjectAltNames: [
        ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ],
    });
  }

  /**
   * A CRL signed by issuing CA `generation` (default: the current one), listing the given serials
   * (any hex form). RangeError for a generation this authority does not hold.
   */
  async createCrl(options: {
    revoked: readonly RevokedCertificate[];
    crlNumber: bigint;
    thisUpdate?: Date;
    nextUpdate: Date;
    generation?: number;
  }): Promise<EncodedCrl> {
    const { generation, ...params } = options;
    const issuer = this.issuerNumbered(generation ?? this.generation);
    return signCrl(issuer.signer, { ...params, thisUpdate: params.thisUpdate ?? this.now() });
  }

  /**
   * Answers an OCSP request (DER) with a response (DER) signed by the delegated OCSP signer of
   * the issuing CA asked about, cached until a status `lookup` gives changes (ocsp.ts). The
   * lookup is told which issuing CA was asked, so that a key of another one is not called good.
   * A request about a CA this authority does not hold gets `unauthorized`. A new signature spends
   * one of `clientAddress`'s share (ocsp.ts).
   */
  async respondOcsp(
    requestDer: Buffer,
    lookup: (serial: string, generation: number) => ReturnType<OcspLookup>,
    clientAddress?: string,
  ): Promise<Buffer> {
    const certIds = readOcspRequest(requestDer);
    const issuer =
      this.issuers.find((candidate) =>
        certIds?.some((certId) => candidate.ocsp.answersFor(certId)),
      ) ?? this.current;
    return issuer.ocsp.respond(
      requestDer,
      (serial) => lookup(serial, issuer.generation),
      clientAddress,
    );
  }

  /** OCSP answers signed by this process so far, for every issuing CA (a cached answer costs none). */
  get ocspSignatures(): number {
    return this.issuers.reduce((sum, issuer) => sum + issuer.ocsp.signedAnswers, 0);
  }

  /** OCSP requests answered `tryLater` by this process so far, for every issuing CA, by why. */
  get ocspRefusals(): Record<OcspRefusal, number> {
    const total: Record<OcspRefusal, number> = { address_budget: 0, queue_full: 0 };
    for (const { ocsp } of this.issuers) {
      for (const [reason, count] of Object.entries(ocsp.refusals)) {
        total[reason as OcspRefusal] += count;
      }
    }
    return total;
  }

  /**
   * The current issuing CA's delegated OCSP signer (ocsp-signer.ts), loaded or issued on the first
   * OCSP request, and re-issued on the first request once it is due for renewal.
   */
  async currentOcspSigner(): Promise<CaSigner> {
    return this.ocspSignerOf(this.current);
  }

  private async ocspSignerOf(issuer: Issuer): Promise<CaSigner> {
    const current = issuer.ocspSigner;
    if (current !== undefined) {
      const signer = await current.catch(() => undefined);
      if (signer !== undefined && isOcspSignerCurrent(signer, this.now())) return signer;
      if (issuer.ocspSigner !== current) return this.ocspSignerOf(issuer);
    }
    const next = loadOrIssueOcspSigner({
      ...this.files,
      issuing: issuer.signer,
      now: this.now(),
      generation: issuer.generation,
    });
    issuer.ocspSigner = next;
    return next;
  }

  private issuerNumbered(generation: number): Issuer {
    const issuer = this.issuers.find((candidate) => candidate.generation === generation);
    if (issuer === undefined) throw new RangeError(`no issuing CA ${generation}`);
    return issuer;
  }

  /** A leaf with a key pair made here: the key is generated only once the request is sound. */
  private async issue(
    commonName: string,
    validityDays: number,
    purpose: LeafProfile['purpose'],
    key: {
      keyAlgorithm: KeyAlgorithm;
      keyPair?: GeneratedKeyPair;
      subjectAltNames?: LeafProfile['subjectAltNames'];
    },
    signing?: LeafSigning,
  ): Promise<IssuedCertificate> {
    checkLeafRequest(commonName, validityDays);
    if (
      key.keyPair !== undefined &&
      key.keyPair.privateKey.asymmetricKeyType !== keyTypeOf(key.keyAlgorithm)
    ) {
      throw new TypeError(`the key pair given is not a ${key.keyAlgorithm} key`);
    }
    const keyPair = key.keyPair ?? (await createKeyPair(key.keyAlgorithm));
    const signed = await this.sign(
      commonName,
      validityDays,
      keyPair.publicKeyDer,
      {
        purpose,
        keyType: keyTypeOf(key.keyAlgorithm),
        ...(key.subjectAltNames === undefined ? {} : { subjectAltNames: key.subjectAltNames }),
      },
      signing,
    );
    return { ...signed, privateKeyPem: privateKeyToPkcs8Pem(keyPair.privateKey) };
  }

  /**
   * Signs a leaf for the public key `publicKeyDer` (SubjectPublicKeyInfo, DER): here, or through
   * `signing` when the CA's key can travel there (a file key: Node's WebCrypto; another
   * provider's key, an HSM's, is used only on this thread).
   */
  private async sign(
    commonName: string,
    validityDays: number,
    publicKeyDer: Buffer,
    profile: LeafProfile,
    signing?: LeafSigning,
  ): Promise<SignedCertificate> {
    checkLeafRequest(commonName, validityDays);
    const now = this.now().getTime();
    const current = this.current;
    const issuer = current.signer.certificate;
    const notBefore = now - this.leafBackdateMs;
    // A server certificate's whole span counts against the phones' limit, the backdating too.
    const end =
      profile.purpose === 'server'
        ? Math.min(now + validityDays * DAY_MS, notBefore + MAX_SERVER_VALIDITY_DAYS * DAY_MS)
        : now + validityDays * DAY_MS;
    const order: LeafOrder = {
      commonName,
      notBefore,
      // A certificate cannot usefully outlive its issuer.
      notAfter: Math.min(end, issuer.notAfter.getTime()),
      publicKeyDer,
      profile,
      issuerDer: new Uint8Array(issuer.rawData),
      urls: current.urls,
      signingKey: current.signer.privateKey,
      signingAlgorithm: current.signer.signingAlgorithm,
    };
    const signed =
      signing !== undefined && current.signer instanceof FileKeySigner
        ? await signing.signLeaf(order)
        : await signLeaf(order, current.signer.crypto);
    return {
      ...signed,
      commonName,
      chainPem: this.chainPemList(current),
      caGeneration: current.generation,
    };
  }
}

async function signedBy(
  certificate: x509.X509Certificate,
  issuer: x509.X509Certificate,
): Promise<boolean> {
  return (
    certificate.issuer === issuer.subject &&
    (await certificate.verify({ publicKey: issuer.publicKey, signatureOnly: true }, webcrypto))
  );
}

function isSelfSigned(certificate: x509.X509Certificate): boolean {
  return certificate.issuer === certificate.subject;
}

/** Every certificate of a PEM bundle, in order. */
export function certificatesIn(pem: string): x509.X509Certificate[] {
  return decodePemBlocks(pem, 'CERTIFICATE').map((der) => new x509.X509Certificate(der));
}

function checkLeafRequest(commonName: string, validityDays: number): void {
  if (commonName.length === 0 || commonName.length > 64 || /\p{Cc}/u.test(commonName)) {
    throw new TypeError(`not a usable common name: ${JSON.stringify(commonName)}`);
  }
  if (!Number.isInteger(validityDays) || validityDays < 1) {
    throw new RangeError(`validityDays must be a positive whole number, not ${validityDays}`);
  }
}

function keyTypeOf(algorithm: KeyAlgorithm): PublicKeyType {
  return algorithm === 'ecdsa-p256' ? 'ec' : 'rsa';
}

function parseBaseUrl(value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new TypeError(`publicBaseUrl must be an http(s) URL, not ${JSON.stringify(value)}`);
  }
  return url;
}
