import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Portal } from './context.js';
import { registerErrorHandler } from './http/error-handler.js';
import { loggerOptions, registerRequestLogging } from './http/logger.js';
import { registerMtlsGate } from './http/mtls-gate.js';
import './http/request-context.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { Authenticator } from './modules/auth/identity.js';
import { registerAuthRoutes } from './modules/auth/routes.js';
import { registerCaRoutes } from './modules/certificates/routes.js';
import { registerHealthRoutes } from './modules/health/routes.js';
import { registerStaticSite } from './web/static-site.js';

export interface BuildAppOptions {
  /** Log as JSON lines at the configured level (the service); tests pass false. */
  logger?: boolean;
}

/** Builds the whole HTTP application; `main.ts` puts it behind the TLS faces, tests too. */
export async function buildApp(
  portal: Portal,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const { config } = portal;
  const serverOptions: FastifyServerOptions = {
    logger: options.logger === false ? false : loggerOptions(config.logLevel),
    // One line per request, written by our own hook with redacted URLs (http/logger.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    // Unique across restarts and instances, so log lines of one request can be found anywhere.
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  };
  const app = Fastify(serverOptions);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  await registerSecurityHeaders(app);
  registerMtlsGate(app, portal.certificates.lookup, `${config.publicOrigin}/error?code=mtls_fail`);
  registerRequestLogging(app);

  const auth = new Authenticator(portal.tokens, portal.members);
  registerHealthRoutes(app, portal.database.db, {
    dns: config.host,
    version: config.version,
    deployment: config.deployment,
  });
  registerAuthRoutes(app, auth);
  registerCaRoutes(app, portal.certificates);
  await registerStaticSite(app, config.webDir);
  return app;
}
