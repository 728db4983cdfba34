import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { caPaths, crlDerPathOf, issuingCaDerPathOf } from '@callsign/contract';
import type { PublicKeyType } from './key-pair.js';

/** Devices with a slightly slow clock still accept a CA certificate made a moment ago. */
export const BACKDATE_MS = 5 * 60_000;

/**
 * How far a leaf's not-before lies in the past by default (`PORTAL_CERT_BACKDATE_MINUTES`, 720):
 * TAK Server's own value, for phones whose clock is hours behind (docs/tak.md#what-was-tried-and-what-was-not).
 */
export const LEAF_BACKDATE_MS = 720 * 60_000;

/**
 * The longest a server certificate may last, from not-before to not-after: Apple's limit for
 * TLS server certificates (398 days; one less, so that rounding never crosses it). iTAK on an
 * iPhone refuses a longer one on the enrollment face.
 */
export const MAX_SERVER_VALIDITY_DAYS = 397;

/**
 * TAK Server's "channels" extended key usage (the OID of PKCS#9 challengePassword, as TAK Server
 * uses it): its `signClient/v2` adds it when the client sends `version`, and a TAK Server with
 * the group cache (`x509useGroupCache`) and `x509useGroupCacheRequiresExtKeyUsage` asks for it.
 */
export const TAK_CHANNELS_EKU = '1.2.840.113549.1.9.7';

/**
 * Where relying parties fetch revocation data and the issuer (no identity, plain HTTP:
 * docs/api.md). caIssuers is the issuing CA's certificate as DER, the form RFC 5280 §4.2.2.1
 * asks for.
 */
export interface PublicationUrls {
  readonly crl: string;
  readonly ocsp: string;
  readonly caIssuers: string;
}

/**
 * The URLs written into the keys of issuing CA `generation`: the first's (the CA directory's)
 * under `/ca/crl.der` and `/ca/issuing-ca.der`, each later one's (a rollover's) under its own
 * generation, so that every key names the CRL of the CA that signed it. OCSP is one URL for all.
 */
export function publicationUrls(publicBaseUrl: URL, generation = 1): PublicationUrls {
  const base = publicBaseUrl.href.replace(/\/+$/, '');
  return {
    crl: `${base}${generation === 1 ? caPaths.crlDer : crlDerPathOf(generation)}`,
    ocsp: `${base}${caPaths.ocsp}`,
    caIssuers: `${base}${generation === 1 ? caPaths.issuingCaDer : issuingCaDerPathOf(generation)}`,
  };
}

const { digitalSignature, keyEncipherment, keyCertSign, cRLSign } = x509.KeyUsageFlags;

export async function rootCaExtensions(
  publicKeyDer: Uint8Array,
  crypto: webcrypto.Crypto,
): Promise<x509.Extension[]> {
  return [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(keyCertSign | cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKeyDer, false, crypto),
  ];
}

/**
 * digitalSignature too: the issuing CA signed OCSP answers itself before the delegated OCSP signer
 * (ocsp-signer.ts) took that over, and CAs issued then carry it.
 */
export async function issuingCaExtensions(
  publicKeyDer: Uint8Array,
  root: x509.X509Certificate,
  crypto: webcrypto.Crypto,
): Promise<x509.Extension[]> {
  return [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(digitalSignature | keyCertSign | cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKeyDer, false, crypto),
    await authorityKeyIdentifier(root, crypto),
  ];
}

export interface LeafProfile {
  readonly purpose: 'client' | 'server';
  readonly keyType: PublicKeyType;
  readonly subjectAltNames?: x509.JsonGeneralNames;
  /** A client certificate with TAK Server's channels EKU beside clientAuth (TAK_CHANNELS_EKU). */
  readonly takChannels?: boolean;
}

/**
 * Client: clientAuth (and TAK's channels EKU when asked). Server: serverAuth and clientAuth, as
 * TAK Server's own server certificates have it: a TAK Server presents its certificate as a
 * client too, to federation peers (docs/tak.md#what-was-tried-and-what-was-not).
 */
function extendedKeyUsages(profile: LeafProfile): string[] {
  if (profile.purpose === 'server') {
    return [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth];
  }
  return profile.takChannels === true
    ? [x509.ExtendedKeyUsage.clientAuth, TAK_CHANNELS_EKU]
    : [x509.ExtendedKeyUsage.clientAuth];
}

export async function leafExtensions(
  profile: LeafProfile,
  publicKeyDer: Uint8Array,
  issuer: x509.X509Certificate,
  urls: PublicationUrls,
  crypto: webcrypto.Crypto,
): Promise<x509.Extension[]> {
  // keyEncipherment only means something for RSA key transport.
  const keyUsage =
    profile.keyType === 'ec'
      ? new x509.KeyUsagesExtension(digitalSignature, true)
      : new x509.KeyUsagesExtension(digitalSignature | keyEncipherment, true);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    keyUsage,
    new x509.ExtendedKeyUsageExtension(extendedKeyUsages(profile), false),
    await x509.SubjectKeyIdentifierExtension.create(publicKeyDer, false, crypto),
    await authorityKeyIdentifier(issuer, crypto),
    new x509.CRLDistributionPointsExtension([urls.crl], false),
    new x509.AuthorityInfoAccessExtension({ ocsp: urls.ocsp, caIssuers: urls.caIssuers }, false),
  ];
  if (profile.subjectAltNames) {
    extensions.push(new x509.SubjectAlternativeNameExtension(profile.subjectAltNames, false));
  }
  return extensions;
}

/** RFC 5280 4.2.1.1: the issuer's own subject key identifier, whatever method made it. */
export async function authorityKeyIdentifier(
  issuer: x509.X509Certificate,
  crypto: webcrypto.Crypto,
): Promise<x509.AuthorityKeyIdentifierExtension> {
  const keyId = issuer.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  return keyId === undefined
    ? x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey, false, crypto)
    : new x509.AuthorityKeyIdentifierExtension(keyId, false);
}
