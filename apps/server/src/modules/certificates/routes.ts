import { X509Certificate } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { UnsupportedMediaTypeError } from '../../errors.js';
import { caPaths } from '@callsign/contract';
import type { CertificateService } from './service.js';

function sendOcsp(reply: FastifyReply, response: Buffer): FastifyReply {
  return reply.type('application/ocsp-response').header('cache-control', 'no-cache').send(response);
}

/** The CA's public endpoints, on both faces and without identity (docs/api.md). */
export function registerCaRoutes(app: FastifyInstance, certificates: CertificateService): void {
  app.get(caPaths.chain, async (_request, reply) => {
    return reply
      .type('application/x-pem-file')
      .header('cache-control', 'public, max-age=3600')
      .send(certificates.chainPem);
  });

  // caIssuers of every leaf: the issuing CA alone, DER (RFC 5280 §4.2.2.1). ca.pem starts with it.
  const issuingCaDer = new X509Certificate(certificates.chainPem).raw;
  app.get(caPaths.issuingCaDer, async (_request, reply) => {
    return reply
      .type('application/pkix-cert')
      .header('cache-control', 'public, max-age=3600')
      .send(issuingCaDer);
  });

  app.get(caPaths.crlPem, async (request, reply) => {
    const crl = await certificates.currentCrl();
    certificates.crlFetchedBy(request.ip);
    return reply.type('application/x-pem-file').header('cache-control', 'no-cache').send(crl.pem);
  });

  // OCSP (RFC 6960 appendix A): a DER request POSTed, or base64 in the path of a GET.
  app.addContentTypeParser(
    'application/ocsp-request',
    { parseAs: 'buffer', bodyLimit: 16 * 1024 },
    (_request, body, done) => {
      done(null, body);
    },
  );
  app.post(caPaths.ocsp, async (request, reply) => {
    if (!Buffer.isBuffer(request.body)) {
      throw new UnsupportedMediaTypeError('Send the request as application/ocsp-request');
    }
    return sendOcsp(reply, await certificates.respondOcspTo(request.body, request.ip));
  });
  // The router has already decoded the path once (%2B, %2F, %3D back to base64); decoding it
  // again turned a literal % in it into a 500.
  app.get(`${caPaths.ocsp}/*`, async (request, reply) => {
    const base64 = (request.params as { '*': string })['*'];
    return sendOcsp(
      reply,
      await certificates.respondOcspTo(Buffer.from(base64, 'base64'), request.ip),
    );
  });

  app.get(caPaths.crlDer, async (request, reply) => {
    const crl = await certificates.currentCrl();
    certificates.crlFetchedBy(request.ip);
    return reply.type('application/pkix-crl').header('cache-control', 'no-cache').send(crl.der);
  });
}
