/**
 * How long a request may take to arrive on every listener of the portal (both faces, the TAK
 * enrollment face, the plain listener behind a proxy; docs/api.md): without them Node lets a
 * request trickle in for 300 s, each holding a connection of the pool.
 */
export interface RequestTimeouts {
  /** From a request's first byte to the end of its headers. */
  headersMs: number;
  /** From a request's first byte to the end of its body. */
  requestMs: number;
  /** How long a kept-alive connection may wait for its next request. */
  keepAliveMs: number;
}

/** A request of the portal is a few kilobytes (`PORTAL_BODY_LIMIT_BYTES`, 64 KB by default). */
export const REQUEST_TIMEOUTS: RequestTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
};

/** The options of Node's `http.createServer` / `https.createServer` that enforce `timeouts`. */
export function serverTimeoutOptions(timeouts: RequestTimeouts = REQUEST_TIMEOUTS) {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // How often the first two are checked (Node's default is every 30 s).
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
  };
}
