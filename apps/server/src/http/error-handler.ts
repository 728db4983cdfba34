import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ValidationIssue } from '@callsign/contract';
import { HttpError, UnprocessableEntityError } from '../errors.js';

function pathOf(instancePath: string): string[] {
  return instancePath.split('/').filter((part) => part !== '');
}

/**
 * The one place errors become answers: `{"detail": text}` with the error's status, 422 with a
 * list for malformed input, and a bare 500 for faults (their details go to the log, not the
 * caller).
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'body';
      const detail: ValidationIssue[] = error.validation.map((issue) => ({
        loc: [where, ...pathOf(issue.instancePath)],
        msg: issue.message ?? 'Invalid value',
        type: issue.keyword,
      }));
      return reply.status(422).send({ detail });
    }
    if (error instanceof UnprocessableEntityError) {
      return reply.status(422).send({ detail: error.issues });
    }
    if (error instanceof HttpError) {
      return reply
        .status(error.statusCode)
        .headers(error.headers)
        .send(error.body ?? { detail: error.detail });
    }
    if (
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      const detail: ValidationIssue[] = [
        { loc: ['body'], msg: error.message, type: 'json_invalid' },
      ];
      return reply.status(422).send({ detail });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ detail: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ detail: 'Internal server error' });
  });
}
