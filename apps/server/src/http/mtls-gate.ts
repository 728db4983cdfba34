import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors.js';
import type { ClientCertificateResult } from '../tls/client-certificate.js';
import type { RequestFaces } from '../tls/request-faces.js';

/**
 * Why a page request was sent away, as the error page's `reason` (beside the spec's
 * `code=mtls_fail`): no key offered at all, a key this portal revoked, one past its end, or one
 * refused for any other reason (another CA's, not issued here, not yet valid).
 */
export type MtlsFailReason = 'no_key' | 'revoked' | 'expired' | 'refused';

/** OpenSSL's words (the built-in TLS face) and the record check's (both faces) for a reason. */
export function mtlsFailReason(
  result: Exclude<ClientCertificateResult, { status: 'verified' }>,
): MtlsFailReason {
  if (result.status === 'absent') return 'no_key';
  const reason = result.reason.toLowerCase();
  if (reason === 'revoked' || reason.includes('cert_revoked')) return 'revoked';
  if (/^expired$|cert_has_expired|certificate has expired/.test(reason)) return 'expired';
  return 'refused';
}

/**
 * Answer on both faces without any identity (docs/api.md): API routes that declare
 * `config.access: 'ungated'` (the health check), and the CA's endpoints.
 */
function isUngated(request: FastifyRequest, pathname: string): boolean {
  return request.routeOptions.config.access === 'ungated' || pathname.startsWith('/ca/');
}

/**
 * The mTLS face admits only requests with a valid, unexpired, unrevoked certificate from the
 * portal's CA, checked on every request so a revocation takes effect on the very next one. API
 * calls without one get 403; pages are sent to the public face's error page.
 */
export function registerMtlsGate(
  app: FastifyInstance,
  faces: RequestFaces,
  /** `https://{host}/error?code=mtls_fail`; the reason is added as `&reason=`. */
  mtlsFailUrl: string,
): void {
  app.decorateRequest('face', 'public');
  app.decorateRequest('clientCertificate', null);

  app.addHook('onRequest', async (request, reply) => {
    request.face = faces.faceOf(request.raw);
    if (request.face === 'public') return;
    const pathname = request.url.split('?')[0] ?? '/';
    if (isUngated(request, pathname)) return;
    const result = await faces.clientCertificate(request.raw);
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
    return reply.redirect(`${mtlsFailUrl}&reason=${mtlsFailReason(result)}`, 302);
  });
}
