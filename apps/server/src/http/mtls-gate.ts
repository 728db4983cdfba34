import type { FastifyInstance } from 'fastify';
import { apiPaths } from '@callsign/contract';
import { ForbiddenError } from '../errors.js';
import { mtlsSocketOf } from '../tls/faces.js';
import { verifyClientCertificate, type CertificateLookup } from '../tls/client-certificate.js';

/** Answer on both faces without any identity (product.md §1). */
function isOpenOnBothFaces(pathname: string): boolean {
  return pathname === apiPaths.healthcheck || pathname.startsWith('/ca/');
}

/**
 * The mTLS face admits only requests with a valid, unexpired, unrevoked certificate from the
 * portal's CA, checked on every request so a revocation takes effect on the very next one. API
 * calls without one get 403; pages are sent to the public face's error page.
 */
export function registerMtlsGate(
  app: FastifyInstance,
  lookup: CertificateLookup,
  mtlsFailUrl: string,
): void {
  app.decorateRequest('face', 'public');
  app.decorateRequest('clientCertificate', null);

  app.addHook('onRequest', async (request, reply) => {
    const socket = mtlsSocketOf(request.raw.socket);
    request.face = socket === undefined ? 'public' : 'mtls';
    if (socket === undefined) return;
    const pathname = request.url.split('?')[0] ?? '/';
    if (isOpenOnBothFaces(pathname)) return;
    const result = await verifyClientCertificate(socket, lookup);
    request.clientCertificate = result;
    if (result.status === 'verified') return;
    request.log.info(
      {
        certificate: result.status,
        reason: result.status === 'rejected' ? result.reason : undefined,
      },
      'mTLS face: client certificate refused',
    );
    if (pathname.startsWith('/api/')) {
      throw new ForbiddenError('A valid client certificate from this portal is required');
    }
    return reply.redirect(mtlsFailUrl, 302);
  });
}
