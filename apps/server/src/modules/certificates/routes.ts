import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError, UnsupportedMediaTypeError } from '../../errors.js';
import { caPaths } from '@callsign/contract';
import { ISSUERS_MAX_AGE_MS, type CertificateService } from './service.js';

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

/** `{n}.der` of a rollover's paths: the generation n ≥ 2, or 404. */
function generationIn(file: string): number {
  const match = /^([2-9]|[1-9][0-9]{1,5})\.der$/.exec(file);
  if (match === null) throw new NotFoundError('No such file');
  return Number(match[1]);
}

/** The CA's public endpoints, on both faces and without identity (docs/api.md). */
export function registerCaRoutes(app: FastifyInstance, certificates: CertificateService): void {
  app.get(caPaths.chain, async (_request, reply) => {
    return reply
      .type('application/x-pem-file')
      .header('cache-control', 'public, max-age=3600')
      .send(certificates.trustPem);
  });

  // caIssuers of every leaf: its issuing CA alone, DER (RFC 5280 §4.2.2.1): the first issuing
  // CA's here, a rollover's at /ca/issuing-ca/{n}.der (ca/templates.ts).
  const sendIssuingCa = (reply: FastifyReply, generation: number) => {
    const der = certificates.issuingCaDer(generation);
    if (der === undefined) throw new NotFoundError('No such issuing CA');
    return reply
      .type('application/pkix-cert')
      .header('cache-control', 'public, max-age=3600')
      .send(der);
  };
  app.get(caPaths.issuingCaDer, async (_request, reply) => sendIssuingCa(reply, 1));
  app.get('/ca/issuing-ca/:file', async (request, reply) => {
    await certificates.refreshIssuers(ISSUERS_MAX_AGE_MS);
    return sendIssuingCa(reply, generationIn((request.params as { file: string }).file));
  });

  // Every published CRL, the current issuing CA's first: what a TAK Server loads (one file).
  app.get(caPaths.crlPem, async (request, reply) => {
    const crls = await certificates.publishedCrls();
    certificates.crlFetchedBy(request.ip);
    return reply
      .type('application/x-pem-file')
      .header('cache-control', 'no-cache')
      .send(crls.map((crl) => crl.pem).join(''));
  });

  // The CRL distribution point of a rollover's keys (ca/templates.ts).
  app.get('/ca/crl/:file', async (request, reply) => {
    const generation = generationIn((request.params as { file: string }).file);
    if (!(await certificates.publishedCrlGenerations()).includes(generation)) {
      throw new NotFoundError('No such CRL');
    }
    const crl = await certificates.currentCrl(generation);
    certificates.crlFetchedBy(request.ip);
    return reply.type('application/pkix-crl').header('cache-control', 'no-cache').send(crl.der);
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
    const crl = await certificates.oldestPublishedCrl();
    certificates.crlFetchedBy(request.ip);
    return reply.type('application/pkix-crl').header('cache-control', 'no-cache').send(crl.der);
  });
}
