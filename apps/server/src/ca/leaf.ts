// @peculiar/x509 needs it; a packing worker loads this module without the entry points' import.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { encodePem } from './pem.js';
import { normalizeSerial, randomSerial } from './serial.js';
import type { SigningAlgorithm } from './signer.js';
import { leafExtensions, type LeafProfile, type PublicationUrls } from './templates.js';

/**
 * One leaf certificate to build and sign, as it crosses to a worker thread: plain values, the
 * issuing CA's certificate as DER and its key as a WebCrypto `CryptoKey` (Node's, which
 * `postMessage` clones, non-extractable too). Everything the CA decides (the checks, the dates)
 * is decided before: what is left is the ASN.1 and the signature.
 */
export interface LeafOrder {
  readonly commonName: string;
  /** Milliseconds since the epoch; the certificate keeps whole seconds. */
  readonly notBefore: number;
  readonly notAfter: number;
  /** SubjectPublicKeyInfo, DER. */
  readonly publicKeyDer: Uint8Array;
  readonly profile: LeafProfile;
  /** The issuing CA's certificate, DER. */
  readonly issuerDer: Uint8Array;
  readonly urls: PublicationUrls;
  readonly signingKey: webcrypto.CryptoKey;
  readonly signingAlgorithm: SigningAlgorithm;
}

/** A signed leaf: what the CA reads back from it. */
export interface SignedLeaf {
  /** Lowercase hex, as `normalizeSerial` gives it. */
  readonly serial: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly certificatePem: string;
}

/**
 * Where leaf certificates are built and signed when the CA's key can travel (a file key): the
 * service's worker threads (`Pkcs12Workers`), so that the ASN.1 work and WebCrypto's checks of a
 * burst of members never hold the event loop. Without one, the CA signs on its own thread.
 */
export interface LeafSigning {
  signLeaf(order: LeafOrder): Promise<SignedLeaf>;
}

/** The issuer parsed last on this thread: every leaf of a CA has the same one. */
let lastIssuer: { der: Buffer; certificate: x509.X509Certificate } | undefined;

function issuerOf(der: Uint8Array): x509.X509Certificate {
  const bytes = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  if (lastIssuer === undefined || !lastIssuer.der.equals(bytes)) {
    lastIssuer = { der: Buffer.from(bytes), certificate: new x509.X509Certificate(bytes) };
  }
  return lastIssuer.certificate;
}

/** Builds and signs one leaf with `crypto` (Node's WebCrypto by default), on this thread. */
export async function signLeaf(
  order: LeafOrder,
  crypto: webcrypto.Crypto = webcrypto,
): Promise<SignedLeaf> {
  const issuer = issuerOf(order.issuerDer);
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: [{ CN: [order.commonName] }],
      issuer: issuer.subjectName,
      notBefore: new Date(order.notBefore),
      notAfter: new Date(order.notAfter),
      publicKey: order.publicKeyDer,
      signingKey: order.signingKey,
      signingAlgorithm: order.signingAlgorithm,
      extensions: await leafExtensions(
        order.profile,
        order.publicKeyDer,
        issuer,
        order.urls,
        crypto,
      ),
    },
    crypto,
  );
  return {
    serial: normalizeSerial(certificate.serialNumber),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    certificatePem: encodePem('CERTIFICATE', certificate.rawData),
  };
}
