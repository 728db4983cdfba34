import { X509Certificate, createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { normalizeSerial } from '../ca/serial.js';
import {
  checkAgainstRecord,
  type CertificateLookup,
  type ClientCertificateResult,
} from './client-certificate.js';
import { plainAddress } from './peer-address.js';

/**
 * Behind a reverse proxy (docs/api.md, PORTAL_TLS_MODE=proxy) the proxy terminates TLS and
 * forwards the client certificate it saw as a URL-encoded PEM header (nginx:
 * `$ssl_client_escaped_cert`), with its verdict in a second header (`$ssl_client_verify`).
 * The portal believes neither blindly: the headers count only on a connection from a trusted
 * proxy address (and, with PORTAL_PROXY_SECRET_FILE, beside the proxy's secret header, which a
 * local process that can connect from that address does not know) and with the proxy's
 * `SUCCESS`, and the certificate is then verified here again,
 * chain to the portal's issuing CA, dates, purpose, and the per-request checks of the built-in
 * face (issued by this portal, CN, not revoked).
 */

/** The escaped PEM of the client certificate (nginx: `$ssl_client_escaped_cert`). */
export const CLIENT_CERT_HEADER = 'x-ssl-client-cert';
/** The proxy's verdict (nginx: `$ssl_client_verify`): `SUCCESS`, `FAILED:reason` or `NONE`. */
export const CLIENT_VERIFY_HEADER = 'x-ssl-client-verify';
/** The secret the proxy sends beside them (`PORTAL_PROXY_SECRET_FILE`, docs/deployment.md). */
export const PROXY_SECRET_HEADER = 'x-portal-proxy-secret';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** A server certificate carries clientAuth too (federation): serverAuth tells it apart. */
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/** `PORTAL_TRUSTED_PROXIES` (addresses and CIDR ranges) as a test of a peer address. */
export function trustedProxyMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(plainAddress(address), type);
    else list.addSubnet(plainAddress(address), Number(bits), type);
  }
  return (address) => {
    const plain = plainAddress(address);
    if (isIPv4(plain)) return list.check(plain, 'ipv4');
    return isIPv6(plain) && list.check(plain, 'ipv6');
  };
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The test of the proxy's secret header against `secret`, in constant time (both sides hashed
 * first, so neither the content nor the length of the secret shows in the time taken).
 */
export function proxySecretCheck(
  secret: string,
): (header: string | string[] | undefined) => boolean {
  const expected = digest(secret);
  return (header) => {
    const given = singleHeader(header);
    return given !== undefined && timingSafeEqual(digest(given), expected);
  };
}

function commonNameOf(certificate: X509Certificate): string | undefined {
  const names = certificate.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice(3));
  return names.length === 1 ? names[0] : undefined;
}

export interface ForwardedHeaders {
  /** The connection's peer: the proxy, or whoever connected straight to the instance. */
  remoteAddress: string | undefined;
  cert: string | string[] | undefined;
  verify: string | string[] | undefined;
  /** The proxy's secret header, checked when the options hold a `proxySecret` test. */
  proxySecret?: string | string[] | undefined;
}

export interface ForwardedCertificateOptions {
  isTrustedProxy: (address: string) => boolean;
  /** With PORTAL_PROXY_SECRET_FILE: whether the secret header is the proxy's (proxySecretCheck). */
  proxySecret?: ((header: string | string[] | undefined) => boolean) | undefined;
  /**
   * The portal's issuing CA, the only signer of member certificates; or a function giving the
   * issuing CAs trusted now (both during a CA rollover).
   */
  issuingCa: X509Certificate | (() => readonly X509Certificate[]);
  lookup: CertificateLookup;
}

/** What the forwarded headers prove, re-verified here; headers not to be trusted count as none. */
export async function verifyForwardedCertificate(
  headers: ForwardedHeaders,
  options: ForwardedCertificateOptions,
  now: Date = new Date(),
): Promise<ClientCertificateResult> {
  const { remoteAddress } = headers;
  if (remoteAddress === undefined || !options.isTrustedProxy(remoteAddress)) {
    return { status: 'absent' };
  }
  if (options.proxySecret !== undefined && !options.proxySecret(headers.proxySecret)) {
    return { status: 'absent' };
  }
  const escaped = singleHeader(headers.cert);
  const verdict = singleHeader(headers.verify);
  if (escaped === undefined || escaped === '' || verdict === undefined || verdict === 'NONE') {
    return { status: 'absent' };
  }
  if (verdict !== 'SUCCESS') {
    return { status: 'rejected', reason: `the proxy did not verify it (${verdict})` };
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(decodeURIComponent(escaped));
  } catch {
    return { status: 'rejected', reason: 'the forwarded certificate is not a PEM certificate' };
  }
  const issuingCas =
    typeof options.issuingCa === 'function' ? options.issuingCa() : [options.issuingCa];
  if (!issuingCas.some((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey))) {
    return { status: 'rejected', reason: 'not signed by the portal CA' };
  }
  if (new Date(certificate.validFrom).getTime() > now.getTime()) {
    return { status: 'rejected', reason: 'not yet valid' };
  }
  const purposes = certificate.keyUsage;
  if (
    Array.isArray(purposes) &&
    (!purposes.includes(CLIENT_AUTH) || purposes.includes(SERVER_AUTH))
  ) {
    return { status: 'rejected', reason: 'not a client certificate' };
  }
  return checkAgainstRecord(
    {
      commonName: commonNameOf(certificate),
      serial: normalizeSerial(certificate.serialNumber),
      notAfter: new Date(certificate.validTo),
    },
    options.lookup,
    now,
  );
}
