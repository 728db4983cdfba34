import { randomUUID, X509Certificate } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import swagger from '@fastify/swagger';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiPaths } from '@callsign/contract';
import type { Portal } from './portal.js';
import { registerErrorHandler } from './http/error-handler.js';
import { loggerOptions, registerRequestLogging } from './http/logger.js';
import { registerCrossSiteGuard } from './http/cross-site.js';
import { registerFailureBudget } from './http/failure-budget.js';
import { registerMtlsGate } from './http/mtls-gate.js';
import './http/request-context.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerRequestMetrics } from './metrics/request-metrics.js';
import { registerAuditRoutes } from './modules/audit/routes.js';
import { registerIdmConsoleRoutes } from './modules/idm-console/routes.js';
import { Authenticator, registerAccessControl } from './modules/auth/access.js';
import { registerAuthRoutes } from './modules/auth/routes.js';
import { everyPolicy } from './modules/auth/identity.js';
import { registerCaRoutes } from './modules/certificates/routes.js';
import { ISSUERS_MAX_AGE_MS } from './modules/certificates/service.js';
import { registerHealthRoutes } from './modules/health/routes.js';
import { registerEnrollmentRoutes } from './modules/enrollment/routes.js';
import { enrollmentKeyPolicy, enrollmentTokenPolicy } from './modules/enrollment/token-policy.js';
import { registerFirstuserRoutes } from './modules/firstuser/routes.js';
import { registerInstructionsRoutes } from './modules/instructions/routes.js';
import { registerInvitesRoutes } from './modules/invites/routes.js';
import { registerKeyLifecycleRoutes, registerKeysRoutes } from './modules/keys/routes.js';
import { registerPeopleRoutes } from './modules/people/routes.js';
import { registerPresetRoutes } from './modules/presets/routes.js';
import { registerGroupRoutes } from './modules/groups/routes.js';
import { registerBulkRoutes } from './modules/bulk/routes.js';
import { registerTakEnrollmentRoutes, registerTakReadinessRoutes } from './modules/tak/routes.js';
import type { RouteContext } from './modules/route-context.js';
import { builtinFaces, proxyFaces, type RequestFaces } from './tls/request-faces.js';
import { registerStaticSite } from './http/static-site.js';

/**
 * The web app sends `Content-Type: application/json` on every call, also on calls
 * without a body (invitecode/create, the DELETEs). An empty body is read as no body; anything
 * else goes to Fastify's own parser, which also guards against prototype poisoning.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}

/** The issuing CAs trusted now (both during a rollover), parsed again only when they change. */
function trustedIssuingCas(portal: Portal): () => readonly X509Certificate[] {
  let seen = '';
  let parsed: X509Certificate[] = [];
  return () => {
    if (portal.ca.trustPem !== seen) {
      seen = portal.ca.trustPem;
      parsed = portal.ca.trustedIssuingCertificatesPem().map((pem) => new X509Certificate(pem));
    }
    return parsed;
  };
}

/** How requests are told apart: by the TLS listener's SNI, or by the proxy's Host and headers. */
function requestFaces(portal: Portal): RequestFaces {
  const { config, certificates } = portal;
  if (config.tlsMode === 'builtin') return builtinFaces(certificates.lookup);
  return proxyFaces({
    mtlsHost: config.mtlsHost,
    trustedProxies: config.trustedProxies,
    proxySecret: config.proxySecret,
    issuingCa: trustedIssuingCas(portal),
    lookup: certificates.lookup,
  });
}

export interface BuildAppOptions {
  /** Log as JSON lines at the configured level (the service); tests pass false. */
  logger?: boolean;
  /** Where the log lines go instead of standard output (tests that read them). */
  logStream?: { write(line: string): void };
}

/** Builds the whole HTTP application; `main.ts` puts it behind the TLS faces, tests too. */
export async function buildApp(
  portal: Portal,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const { config } = portal;
  const serverOptions: FastifyServerOptions = {
    logger: options.logger === false ? false : loggerOptions(config.logLevel, options.logStream),
    // One line per request, written by our own hook with redacted URLs (http/logger.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Behind the proxy, the client's address (rate limits, audit) is the one the proxy forwards
    // in X-Forwarded-For, believed only from PORTAL_TRUSTED_PROXIES.
    trustProxy: config.tlsMode === 'proxy' ? [...config.trustedProxies] : false,
    // Unique across restarts and instances, so log lines of one request can be found anywhere.
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // A URL the router cannot decode (bad percent-encoding, an over-long segment) answers in
    // the same `{"detail"}` form as every other error, without repeating the URL (it may hold a
    // code, and it is the caller's own anyway).
    frameworkErrors: (_error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      void reply.status(400).send({ detail: 'Malformed or over-long URL' });
    },
  };
  const app = Fastify(serverOptions);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  acceptEmptyJsonBodies(app);
  await registerSecurityHeaders(app, { behindProxy: config.tlsMode === 'proxy' });
  registerMtlsGate(app, requestFaces(portal), `${config.publicOrigin}/error?code=mtls_fail`);
  registerCrossSiteGuard(app, [config.publicOrigin, config.mtlsOrigin]);
  registerRequestLogging(app);
  registerRequestMetrics(app, portal.metrics);
  // A CA rollover begun or finished by the CLI or another instance is seen by the next request
  // after a few seconds at most: the trust bundle, packages, the CA card, the mTLS face's CAs.
  // A database that cannot be read is for the routes to report (the health check's 503); the CA
  // keeps the state it read last, and a mint, which reads it again itself, fails on its own.
  app.addHook('onRequest', async () => {
    await portal.certificates.refreshIssuers(ISSUERS_MAX_AGE_MS).catch(() => undefined);
  });
  // The OpenAPI document is generated from the same zod schemas the routes validate with.
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Callsign Portal API',
        version: config.version,
        description: 'The calls of the Callsign Portal (docs/api.md).',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: jsonSchemaTransform,
  });

  const { now } = portal;
  const auth = new Authenticator(
    portal.tokens,
    portal.members,
    everyPolicy(
      portal.services.signOut.stillSignedIn,
      enrollmentTokenPolicy(portal.database.db, config.enrollmentGraceMs, now),
    ),
    enrollmentKeyPolicy(
      (callsign) => portal.certificates.firstKeyIssuedAt(callsign),
      config.mtlsOrigin,
      now,
    ),
    now,
  );
  // Before any route: they check each route's declaration as it is registered.
  registerAccessControl(app, auth);
  // In the database, so that every instance on one PostgreSQL spends the same budget.
  registerFailureBudget(app, portal.services.failureBudget);
  // The portal is the composition root: the routes receive its services (portal.ts).
  const context: RouteContext = portal;
  registerHealthRoutes(app, portal.database.db, {
    dns: config.host,
    version: config.version,
    deployment: config.deployment,
  });
  registerAuthRoutes(app, context);
  registerCaRoutes(app, portal.certificates);
  registerFirstuserRoutes(app, context);
  registerEnrollmentRoutes(app, context);
  registerPeopleRoutes(app, context);
  registerInvitesRoutes(app, context);
  registerPresetRoutes(app, context);
  registerGroupRoutes(app, context);
  registerBulkRoutes(app, context);
  registerKeysRoutes(app, context);
  registerKeyLifecycleRoutes(app, context);
  registerInstructionsRoutes(app, context);
  registerIdmConsoleRoutes(app, context);
  registerTakEnrollmentRoutes(app, context);
  registerAuditRoutes(app, context);
  registerTakReadinessRoutes(app, context);
  app.get(
    apiPaths.openapi,
    {
      config: { access: 'anonymous' },
      schema: { hide: true, response: { 200: z.looseObject({ openapi: z.string() }) } },
    },
    () => app.swagger(),
  );
  await registerStaticSite(app, config.webDir, { brandingDir: config.brandingDir });
  return app;
}
