import type { Face } from '../tls/faces.js';
import type { ClientCertificateResult } from '../tls/client-certificate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The face the request came in on: `public` ({host}) or `mtls` (mtls.{host}). */
    face: Face;
    /** On the mTLS face, what the presented client certificate proved; null elsewhere. */
    clientCertificate: ClientCertificateResult | null;
  }
}
