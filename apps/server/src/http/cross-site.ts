import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnsupportedMediaTypeError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers with a freshly minted certificate: refused cross-site like a write. */
    mints?: boolean;
    /** A GET that changes state (audit.csv records its export): refused cross-site like a write. */
    writes?: boolean;
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isApiPath(url: string | undefined): boolean {
  return url !== undefined && url.startsWith('/api/');
}

function hasBody(request: FastifyRequest): boolean {
  const length = Number(request.headers['content-length'] ?? 0);
  return request.headers['transfer-encoding'] !== undefined || length > 0;
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

/**
 * Where a browser says the request comes from. `same-site` is the other face of the portal, but
 * also any sibling of {host} under the same registrable domain: it counts as the portal's own
 * only with an Origin header naming one of the portal's origins.
 */
function isFromOwnPages(request: FastifyRequest, ownOrigins: ReadonlySet<string>): boolean {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin?.toLowerCase();
  if (origin !== undefined && !ownOrigins.has(origin)) return false;
  if (site === 'cross-site') return false;
  if (site === 'same-site' && origin === undefined) return false;
  return true;
}

/**
 * A client certificate is an ambient credential, like a cookie: any page a member opens could
 * make their browser send it (docs/api.md, "No cross-site writes"). On every API route:
 *
 * - a request that changes state (POST, PUT, PATCH, DELETE, or a GET that declares
 *   `config.writes`) or mints a certificate (`config.mints`) is refused with 403 unless it comes
 *   from the portal's own pages (or from no page at all: curl, the TAK clients);
 * - a request that changes state or carries a body must say `Content-Type: application/json`
 *   (415 otherwise, an empty body included), which no HTML form can send.
 *
 * CORS stays closed: nothing here or elsewhere sends an Access-Control-Allow-* header, so no
 * other site can read an answer either.
 */
export function registerCrossSiteGuard(app: FastifyInstance, ownOrigins: readonly string[]): void {
  const own = new Set(ownOrigins.map((origin) => origin.toLowerCase()));
  app.addHook('onRequest', (request, _reply, done) => {
    done(refusalOf(request, own));
  });
}

/** Why the request is refused, or undefined. */
function refusalOf(request: FastifyRequest, own: ReadonlySet<string>): Error | undefined {
  if (!isApiPath(request.routeOptions.url)) return undefined;
  const { mints, writes } = request.routeOptions.config;
  const changesState = STATE_CHANGING.has(request.method);
  if ((changesState || mints === true || writes === true) && !isFromOwnPages(request, own)) {
    return new ForbiddenError('Cross-site request refused');
  }
  if ((changesState || hasBody(request)) && !isJson(request.headers['content-type'])) {
    return new UnsupportedMediaTypeError('Send the request as Content-Type: application/json');
  }
  return undefined;
}
