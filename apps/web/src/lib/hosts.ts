import { MTLS_PREFIX, mtlsHost, publicHost } from '@callsign/contract';

/** `https://mtls.{host}` for the current page (the port kept, as the embedded server uses one). */
export function mtlsOrigin(host: string = window.location.host): string {
  return `https://${mtlsHost(host)}`;
}

export function publicOrigin(host: string = window.location.host): string {
  return `https://${publicHost(host)}`;
}

/** The authenticated footer is shown on the mTLS face. */
export function isMtlsOrigin(origin: string = window.location.origin): boolean {
  return origin.includes(MTLS_PREFIX);
}
