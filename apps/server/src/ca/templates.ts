import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { caPaths } from '@callsign/contract';
import type { PublicKeyType } from './key-pair.js';

/** Devices with a slightly slow clock still accept a certificate issued a moment ago. */
export const BACKDATE_MS = 5 * 60_000;

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

export function publicationUrls(publicBaseUrl: URL): PublicationUrls {
  const base = publicBaseUrl.href.replace(/\/+$/, '');
  return {
    crl: `${base}${caPaths.crlDer}`,
    ocsp: `${base}${caPaths.ocsp}`,
    caIssuers: `${base}${caPaths.issuingCaDer}`,
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
    new x509.ExtendedKeyUsageExtension(
      [
        profile.purpose === 'client'
          ? x509.ExtendedKeyUsage.clientAuth
          : x509.ExtendedKeyUsage.serverAuth,
      ],
      false,
    ),
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
