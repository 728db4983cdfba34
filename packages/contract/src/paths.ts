/** URL paths of the API, the CA endpoints and the web app that more than one side builds. */
export const API_PREFIX = '/api/v1';

export const apiPaths = {
  healthcheck: `${API_PREFIX}/healthcheck`,
  checkAuthAny: `${API_PREFIX}/check-auth/mtls_or_jwt`,
  checkAuthValidUser: `${API_PREFIX}/check-auth/validuser`,
  checkAuthAdmin: `${API_PREFIX}/check-auth/validuser/admin`,
} as const;

export const caPaths = {
  chain: '/ca/ca.pem',
  crlPem: '/ca/crl.pem',
  crlDer: '/ca/crl.der',
  ocsp: '/ca/ocsp',
} as const;

/** The subdomain prefix of the mTLS face: `mtls.{host}`. */
export const MTLS_PREFIX = 'mtls.';

export function mtlsHost(host: string): string {
  return host.startsWith(MTLS_PREFIX) ? host : `${MTLS_PREFIX}${host}`;
}

export function publicHost(host: string): string {
  return host.startsWith(MTLS_PREFIX) ? host.slice(MTLS_PREFIX.length) : host;
}
