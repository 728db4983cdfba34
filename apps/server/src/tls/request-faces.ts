import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mtlsSocketOf, type Face } from './faces.js';
import {
  verifyClientCertificate,
  type CertificateLookup,
  type ClientCertificateResult,
} from './client-certificate.js';
import {
  CLIENT_CERT_HEADER,
  CLIENT_VERIFY_HEADER,
  PROXY_SECRET_HEADER,
  proxySecretCheck,
  trustedProxyMatcher,
  verifyForwardedCertificate,
} from './forwarded-certificate.js';

/** How a request's face and client certificate are told, per listening mode (docs/api.md). */
export interface RequestFaces {
  faceOf(request: IncomingMessage): Face;
  /** Only asked for requests on the mTLS face. */
  clientCertificate(request: IncomingMessage): Promise<ClientCertificateResult>;
}

/** Built-in TLS: the face is the TLS server the SNI chose; the certificate is the handshake's. */
export function builtinFaces(lookup: CertificateLookup): RequestFaces {
  return {
    faceOf: (request) => (mtlsSocketOf(request.socket) === undefined ? 'public' : 'mtls'),
    clientCertificate(request) {
      const socket = mtlsSocketOf(request.socket);
      if (socket === undefined) return Promise.resolve({ status: 'absent' });
      return verifyClientCertificate(socket, lookup);
    },
  };
}

/** The name in a Host header, without the port, lower-cased (`[::1]:80` gives `[::1]`). */
function hostNameOf(request: IncomingMessage): string {
  const host = request.headers.host ?? '';
  return (/^(\[[^\]]*\]|[^:]*)/.exec(host)?.[1] ?? '').toLowerCase();
}

export interface ProxyFacesOptions {
  mtlsHost: string;
  trustedProxies: readonly string[];
  /** PORTAL_PROXY_SECRET_FILE's secret, which the proxy sends beside the certificate. */
  proxySecret: string | undefined;
  issuingCa: X509Certificate | (() => readonly X509Certificate[]);
  lookup: CertificateLookup;
}

/**
 * Behind the proxy: the face is the Host the proxy's server block passes on (`mtls.{host}` or
 * anything else), the certificate comes from the proxy's headers, trusted only as
 * forwarded-certificate.ts allows.
 */
export function proxyFaces(options: ProxyFacesOptions): RequestFaces {
  const mtlsHost = options.mtlsHost.toLowerCase();
  const isTrustedProxy = trustedProxyMatcher(options.trustedProxies);
  const proxySecret =
    options.proxySecret === undefined ? undefined : proxySecretCheck(options.proxySecret);
  return {
    faceOf: (request) => (hostNameOf(request) === mtlsHost ? 'mtls' : 'public'),
    clientCertificate(request) {
      return verifyForwardedCertificate(
        {
          remoteAddress: request.socket.remoteAddress,
          cert: request.headers[CLIENT_CERT_HEADER],
          verify: request.headers[CLIENT_VERIFY_HEADER],
          proxySecret: request.headers[PROXY_SECRET_HEADER],
        },
        { isTrustedProxy, proxySecret, issuingCa: options.issuingCa, lookup: options.lookup },
      );
    },
  };
}
