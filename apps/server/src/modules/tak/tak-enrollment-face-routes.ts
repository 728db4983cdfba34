import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
} from 'fastify';
import { registerErrorHandler } from '../../http/error-handler.js';
import { registerFailureBudget } from '../../http/failure-budget.js';
import { loggerOptions, registerRequestLogging } from '../../http/logger.js';
import {
  certificateConfigXml,
  oauthTokenJson,
  signClientJson,
  signClientPkcs12,
  signClientXml,
} from '../../tak/tak-enrollment.js';
import {
  hasSuccessSchema,
  isTakFaceAccess,
  refusalsAtStartUp,
  TAK_FACE_ACCESS_LEVELS,
  type TakFaceAccess,
} from '../auth/access.js';
import {
  answerFormat,
  deviceField,
  NO_STORE,
  NotAcceptableError,
  passwordGrant,
  type Device,
} from './tak-enrollment.js';
import type { RouteContext } from '../route-context.js';
import type { LoginUse, TakEnrollmentLogin, TakEnrollmentTokens } from './tak-enrollment-tokens.js';

/** The paths of the TAK certificate-enrollment protocol, as TAK Server serves them. */
export const TAK_ENROLL_PATHS = {
  config: '/Marti/api/tls/config',
  signClientV2: '/Marti/api/tls/signClient/v2',
  signClient: '/Marti/api/tls/signClient',
  profile: '/Marti/api/tls/profile/enrollment',
  /** TAK Server's OAuth token endpoint: stock TAK libraries log in here first (docs/tak.md#what-was-tried-and-what-was-not). */
  oauthToken: '/oauth/token',
} as const;

/** A CSR is under 2 KB even for RSA-4096; nothing else is ever sent here. */
const BODY_LIMIT_BYTES = 16 * 1024;

export interface TakEnrollAppOptions {
  /** Log as JSON lines at the configured level (the service); tests pass false. */
  logger?: boolean;
  logStream?: { write(line: string): void };
}

interface EnrollQuery {
  clientUid?: unknown;
  clientUID?: unknown;
  version?: unknown;
}

/** A request of the face: the device describes itself in the query. */
type TakFaceRequest = FastifyRequest<{ Querystring: EnrollQuery }>;

function deviceOf(request: TakFaceRequest): Device {
  const query = request.query;
  return {
    // ATAK and the iOS clients write clientUid; other clients (goatak) clientUID.
    clientUid: deviceField('clientUid', query.clientUid ?? query.clientUID),
    version: deviceField('version', query.version),
    clientAddress: request.ip,
  };
}

/** What each access level of the face logs in for (modules/auth/access.ts). */
const LOGIN_USE: Record<TakFaceAccess, LoginUse> = {
  'tak-enrollment-token': 'enroll',
  'tak-profile-token': 'profile',
};

/**
 * The face's route rules, as registerAccessControl has them for the API: a route that declares
 * no access of the face or no 200 answer stops the face when it gets ready, naming the route.
 */
function registerTakFaceRouteRules(app: FastifyInstance): void {
  const refuse = refusalsAtStartUp(app, 'The TAK enrollment face cannot start');
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = `${methods.join(',')} ${route.url}`;
    if (!isTakFaceAccess(route.config?.access)) {
      refuse(
        `${name}: every TAK enrollment face route declares its access (config.access: ${TAK_FACE_ACCESS_LEVELS.join(' | ')})`,
      );
    } else if (!hasSuccessSchema(route.schema)) {
      refuse(`${name}: every TAK enrollment face route declares its 200 response schema`);
    }
  });
}

/** A route of the face: its access declared once; the handler gets the login it establishes. */
interface TakFaceRoute {
  method: 'GET' | 'POST';
  url: string;
  access: TakFaceAccess;
  /**
   * Where the callsign and token are: the `Authorization` header (Basic, or Bearer with an access
   * token of `/oauth/token`), or a password grant's fields (the token endpoint itself).
   */
  credentials?: 'authorization' | 'password-grant';
  schema: FastifySchema;
  handler(
    login: TakEnrollmentLogin,
    request: TakFaceRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply>;
}

/**
 * Registers a route of the face. The login is checked inside the handler, so that the caller's
 * failure budget (`config.failureBudget`, which wraps the handler) counts a wrong one and
 * answers 429 before it is even checked once the budget is spent.
 */
function takFaceRoute(app: FastifyInstance, tokens: TakEnrollmentTokens, route: TakFaceRoute) {
  // eslint-disable-next-line no-restricted-syntax -- the one place a route of the face registers
  app.route<{ Querystring: EnrollQuery }>({
    method: route.method,
    url: route.url,
    schema: route.schema,
    config: { access: route.access, failureBudget: true },
    handler: async (request, reply) => {
      const use = LOGIN_USE[route.access];
      const login =
        route.credentials === 'password-grant'
          ? await tokens.passwordLogin(
              passwordGrant(
                request.query as Record<string, unknown>,
                typeof request.body === 'string' ? request.body : '',
                request.headers['content-type'],
              ),
              use,
            )
          : await tokens.login(request.headers.authorization, use);
      return route.handler(login, request, reply);
    },
  });
}

/** A 200 answer of the face: bytes of one of `types`, described for the reader of the route. */
function bytesAnswer(description: string, ...types: string[]): FastifySchema {
  const content = Object.fromEntries(types.map((type) => [type, { schema: { type: 'string' } }]));
  return { response: { 200: { description, content } } };
}

/**
 * The TAK enrollment face (`https://{takHost}:8446`, docs/tak.md): its own small application
 * behind its own listener, so that neither it nor the portal's faces can ever answer the other's
 * paths. Only `/Marti/api/tls/*` and TAK Server's `/oauth/token`; everything else is 404. Every
 * call logs in with the callsign and a one-time token (HTTP Basic, a password grant, or the
 * access token that grant gave) and spends the caller's failure budget like the portal's code
 * checks: a wrong login counts, and past the budget the face answers 429.
 */
export async function buildTakEnrollApp(
  context: RouteContext,
  options: TakEnrollAppOptions = {},
): Promise<FastifyInstance> {
  const { config } = context;
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
  // Before any route: they check each route's declaration as it is registered.
  registerTakFaceRouteRules(app);
  registerFailureBudget(app, context.services.failureBudget);
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not found' }));

  const { takEnrollmentTokens: tokens, takEnrollment: enrollment } = context.services;
  const bodyText = (body: unknown) => (typeof body === 'string' ? body : '');

  takFaceRoute(app, tokens, {
    method: 'POST',
    url: TAK_ENROLL_PATHS.oauthToken,
    access: 'tak-enrollment-token',
    credentials: 'password-grant',
    schema: bytesAnswer("TAK Server's OAuth access token for this enrollment", 'application/json'),
    handler: async (login, _request, reply) =>
      reply
        .headers(NO_STORE)
        // TAK Server's (Spring's) type for it.
        .header('content-type', 'application/json;charset=UTF-8')
        .send(Buffer.from(oauthTokenJson(await tokens.accessToken(login)))),
  });

  takFaceRoute(app, tokens, {
    method: 'GET',
    url: TAK_ENROLL_PATHS.config,
    access: 'tak-enrollment-token',
    schema: bytesAnswer('The certificate configuration (XML)', 'text/plain'),
    handler: async (_login, _request, reply) =>
      // TAK Server's type for this XML; the iOS clients take nothing else.
      reply
        .header('content-type', 'text/plain;charset=UTF-8')
        .send(certificateConfigXml(config.deployment)),
  });

  takFaceRoute(app, tokens, {
    method: 'POST',
    url: TAK_ENROLL_PATHS.signClientV2,
    access: 'tak-enrollment-token',
    schema: bytesAnswer(
      'The signed certificate and its CAs',
      'application/json',
      'application/xml',
      'text/plain',
    ),
    handler: async (login, request, reply) => {
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
  });

  takFaceRoute(app, tokens, {
    method: 'POST',
    url: TAK_ENROLL_PATHS.signClient,
    access: 'tak-enrollment-token',
    schema: bytesAnswer('The signed certificate in a PKCS#12', 'application/x-pkcs12'),
    handler: async (login, request, reply) => {
      const answer = await enrollment.sign(login, bodyText(request.body), deviceOf(request));
      return reply
        .header('content-type', 'application/x-pkcs12')
        .header('cache-control', 'no-store')
        .send(await signClientPkcs12(answer));
    },
  });

  takFaceRoute(app, tokens, {
    method: 'GET',
    url: TAK_ENROLL_PATHS.profile,
    access: 'tak-profile-token',
    schema: bytesAnswer('The enrollment profile package (204 before signing)', 'application/zip'),
    handler: async (login, _request, reply) => {
      const profile = enrollment.profile(login);
      if (profile === undefined) return reply.status(204).send();
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', 'attachment; filename=profile.zip')
        .header('cache-control', 'no-store')
        .send(Buffer.from(profile));
    },
  });

  return app;
}
