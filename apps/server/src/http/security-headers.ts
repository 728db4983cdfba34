import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cameInPlainHttp } from '../tls/plain-http.js';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * Whether the answer goes out in plain HTTP: the CA's files on the TLS port's plain side, or
 * behind the proxy on its port 80 (nginx says `X-Forwarded-Proto: http` there, https elsewhere).
 */
function answeredInPlainHttp(request: FastifyRequest, behindProxy: boolean): boolean {
  return behindProxy
    ? request.headers['x-forwarded-proto'] === 'http'
    : cameInPlainHttp(request.raw);
}

/**
 * Security headers on every answer (docs/api.md): a strict CSP with no inline script, HSTS,
 * nosniff, frame denial and a referrer policy that never leaks a code in a URL to another site.
 * HSTS goes only over TLS: a host must not send it in plain HTTP (RFC 6797 §7.2), where the CA's
 * files are also answered.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  options: { behindProxy: boolean },
): Promise<void> {
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
  // After helmet's own hook, which writes the headers onto the raw answer.
  app.addHook('onRequest', async (request, reply) => {
    if (answeredInPlainHttp(request, options.behindProxy)) {
      reply.raw.removeHeader('strict-transport-security');
    }
  });
}
