import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { redactUrl } from './redact.js';

/**
 * JSON lines with a request id, route, status and latency, and never a code, token or key:
 * URLs are redacted and the headers that carry credentials are left out entirely.
 */
export function loggerOptions(
  level: string,
  /** Where the lines go; standard output when not given (tests read them). */
  stream?: { write(line: string): void },
): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream === undefined ? {} : { stream }),
    // Not `*.code`: that would hide an error's code (ECONNREFUSED, SQLITE_BUSY), which says
    // what failed. No login or invite code is logged as a field; URLs go through redactUrl.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.jwt', '*.token'],
      censor: '[redacted]',
    },
  };
}

export function registerRequestLogging(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const log: FastifyBaseLogger = request.log;
    log.info(
      {
        method: request.method,
        url: redactUrl({
          url: request.url,
          route: request.routeOptions.url,
          params: request.params,
        }),
        route: request.routeOptions.url,
        face: request.face,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        client: request.ip,
      },
      'request',
    );
  });
}
