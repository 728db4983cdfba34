import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * Security headers on every answer (docs/deployment.md): a strict CSP with no inline script, HSTS,
 * nosniff, frame denial and a referrer policy that never leaks a code in a URL to another site.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    // A fresh nonce per answer (reply.cspNonce); the web app's index.html carries the style one.
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        manifestSrc: ["'self'"],
        workerSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    strictTransportSecurity: { maxAge: YEAR_SECONDS, includeSubDomains: false },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    crossOriginEmbedderPolicy: false,
  });
}
