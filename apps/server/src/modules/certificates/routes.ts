import { X509Certificate } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { UnsupportedMediaTypeError } from '../../errors.js';
import { caPaths } from '@callsign/contract';
import type { CertificateService } from './service.js';

/** How many OCSP answers one turn of the event loop makes before other callers' I/O is read. */
const OCSP_ANSWERS_PER_TURN = 1;
const waitingForATurn: (() => void)[] = [];
let turnScheduled = false;

function answerSomeWaiting(): void {
  turnScheduled = false;
  for (const next of waitingForATurn.splice(0, OCSP_ANSWERS_PER_TURN)) next();
  if (waitingForATurn.length > 0) scheduleTurn();
}

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(answerSomeWaiting);
}

/**
 * OCSP is asked by anyone, without identity, and a TAK Server asks on every client connection: a
 * flood of it must not make other callers wait behind it. Answers are made a few per turn of the
 * event loop, after the I/O it already has in hand (the check phase), so a request of another
 * caller that arrived meanwhile is read and served between them; bench/ section 10 measures it.
 */
async function answerOcsp(
  reply: FastifyReply,
  certificates: CertificateService,
  request: Buffer,
  clientAddress: string,
): Promise<FastifyReply> {
  await new Promise<void>((resolve) => {
    waitingForATurn.push(resolve);
    scheduleTurn();
  });
  return sendOcsp(reply, await certificates.respondOcspTo(request, clientAddress));
}

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
    return answerOcsp(reply, certificates, request.body, request.ip);
  });
  // The router has already decoded the path once (%2B, %2F, %3D back to base64); decoding it
  // again turned a literal % in it into a 500.
  app.get(`${caPaths.ocsp}/*`, async (request, reply) => {
    const base64 = (request.params as { '*': string })['*'];
    return answerOcsp(reply, certificates, Buffer.from(base64, 'base64'), request.ip);
  });

  app.get(caPaths.crlDer, async (request, reply) => {
    const crl = await certificates.currentCrl();
    certificates.crlFetchedBy(request.ip);
    return reply.type('application/pkix-crl').header('cache-control', 'no-cache').send(crl.der);
  });
}
