import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Portal } from './portal.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerFailureBudget } from './http/failure-budget.js';
import { DatabaseFailureBudget } from './modules/auth/failure-budget.js';
import { loggerOptions, registerRequestLogging } from './http/logger.js';
import {
  certificateConfigXml,
  signClientJson,
  signClientPkcs12,
  signClientXml,
} from './tak/enrollment.js';
import {
  answerFormat,
  deviceField,
  NotAcceptableError,
  type Device,
} from './modules/tak-enroll/enrollment.js';
import { takEnrollmentServices } from './modules/tak-enroll/services.js';

/** The paths of the TAK certificate-enrollment protocol, as TAK Server serves them. */
export const TAK_ENROLL_PATHS = {
  config: '/Marti/api/tls/config',
  signClientV2: '/Marti/api/tls/signClient/v2',
  signClient: '/Marti/api/tls/signClient',
  profile: '/Marti/api/tls/profile/enrollment',
} as const;

/** A CSR is under 2 KB even for RSA-4096; nothing else is ever sent here. */
const BODY_LIMIT_BYTES = 16 * 1024;

export interface TakEnrollAppOptions {
  /** Log as JSON lines at the configured level (the service); tests pass false. */
  logger?: boolean;
  logStream?: { write(line: string): void };
  now?: () => Date;
}

interface EnrollQuery {
  clientUid?: unknown;
  clientUID?: unknown;
  version?: unknown;
}

function deviceOf(request: FastifyRequest<{ Querystring: EnrollQuery }>): Device {
  const query = request.query;
  return {
    // ATAK and the iOS clients write clientUid; other clients (goatak) clientUID.
    clientUid: deviceField('clientUid', query.clientUid ?? query.clientUID),
    version: deviceField('version', query.version),
    clientAddress: request.ip,
  };
}

/**
 * The TAK enrollment face (`https://{takHost}:8446`, docs/tak.md): its own small application
 * behind its own listener, so that neither it nor the portal's faces can ever answer the other's
 * paths. Only `/Marti/api/tls/*`; everything else is 404. Every call logs in with HTTP Basic
 * (callsign and a one-time token) and spends the caller's failure budget like the portal's code
 * checks: a wrong login counts, and past the budget the face answers 429.
 */
export async function buildTakEnrollApp(
  portal: Portal,
  options: TakEnrollAppOptions = {},
): Promise<FastifyInstance> {
  const { config } = portal;
  const now = options.now ?? (() => new Date());
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.logLevel, options.logStream),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Behind the proxy, the client's address (the failure budget) is the one nginx forwards.
    trustProxy: config.tlsMode === 'proxy' ? [...config.trustedProxies] : false,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // OpenTAKServer's clients write `signClient/`; TAK Server answers either.
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: (_error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      void reply.status(400).send({ detail: 'Malformed or over-long URL' });
    },
  });
  registerErrorHandler(app);
  registerRequestLogging(app);
  // Clients send the CSR as text/plain with various charsets, or with no type at all.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    done(null, body);
  });
  registerFailureBudget(
    app,
    new DatabaseFailureBudget(portal.database.db, config.rateLimitFailuresPerMinute),
  );
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not found' }));

  const { tokens, enrollment } = takEnrollmentServices(portal, now);
  const guessable = { failureBudget: true } as const;
  const bodyText = (body: unknown) => (typeof body === 'string' ? body : '');

  app.get(TAK_ENROLL_PATHS.config, { config: guessable }, async (request, reply) => {
    await tokens.login(request.headers.authorization, 'enroll');
    // TAK Server's type for this XML; the iOS clients take nothing else.
    return reply
      .header('content-type', 'text/plain;charset=UTF-8')
      .send(certificateConfigXml(config.deployment));
  });

  app.post<{ Querystring: EnrollQuery }>(
    TAK_ENROLL_PATHS.signClientV2,
    { config: guessable },
    async (request, reply) => {
      const login = await tokens.login(request.headers.authorization, 'enroll');
      const format = answerFormat(request.headers.accept);
      if (format === undefined) throw new NotAcceptableError();
      const answer = await enrollment.sign(login, bodyText(request.body), deviceOf(request));
      reply.header('cache-control', 'no-store');
      // Bytes, so that Fastify adds no charset: node-tak compares `application/json` literally.
      if (format === 'xml') {
        return reply
          .header('content-type', 'application/xml')
          .send(Buffer.from(signClientXml(answer)));
      }
      const type = format === 'json' ? 'application/json' : 'text/plain;charset=UTF-8';
      return reply.header('content-type', type).send(Buffer.from(signClientJson(answer)));
    },
  );

  app.post<{ Querystring: EnrollQuery }>(
    TAK_ENROLL_PATHS.signClient,
    { config: guessable },
    async (request, reply) => {
      const login = await tokens.login(request.headers.authorization, 'enroll');
      const answer = await enrollment.sign(login, bodyText(request.body), deviceOf(request));
      return reply
        .header('content-type', 'application/x-pkcs12')
        .header('cache-control', 'no-store')
        .send(await signClientPkcs12(answer));
    },
  );

  app.get(TAK_ENROLL_PATHS.profile, { config: guessable }, async (request, reply) => {
    const login = await tokens.login(request.headers.authorization, 'profile');
    const profile = enrollment.profile(login);
    if (profile === undefined) return reply.status(204).send();
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', 'attachment; filename=profile.zip')
      .header('cache-control', 'no-store')
      .send(Buffer.from(profile));
  });

  return app;
}
