import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  addAdminBodySchema,
  addAdminResponseSchema,
  apiPaths,
  checkAdminCodeQuerySchema,
  checkAdminCodeResponseSchema,
  exchangeCodeBodySchema,
  exchangeCodeResponseSchema,
} from '@callsign/contract';
import { ForbiddenError } from '../../errors.js';
import type { Authenticator } from '../auth/identity.js';
import type { TokenClaims } from '../auth/token-service.js';
import type { RouteContext } from '../route-context.js';
import { FirstuserService } from './service.js';

/** The caller's first-admin session; 403 for any other identity (product.md §4). */
async function firstAdminSession(
  auth: Authenticator,
  request: FastifyRequest,
): Promise<TokenClaims> {
  const identity = await auth.any(request);
  if (identity.type !== 'jwt' || identity.payload.scope !== 'first-admin') {
    throw new ForbiddenError('A first-admin session is required');
  }
  return identity.payload;
}

/** GET firstuser/check-code, POST token/code/exchange and POST firstuser/add-admin. */
export function registerFirstuserRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, database, tokens } = context.portal;
  const service = new FirstuserService({
    db: database.db,
    tokens,
    failures: context.failures,
    now: context.now,
    exchangeCodeTtlMs: config.exchangeCodeTtlMs,
    firstAdminTokenTtlMs: config.firstAdminTokenTtlMs,
    memberTokenTtlMs: config.memberTokenTtlMs,
  });

  app.get(
    apiPaths.checkAdminCode,
    {
      schema: {
        querystring: checkAdminCodeQuerySchema,
        response: { 200: checkAdminCodeResponseSchema },
      },
    },
    async (request) => ({
      code_ok: await service.checkAdminCode(request, request.query.temp_admin_code),
    }),
  );

  app.post(
    apiPaths.exchangeCode,
    { schema: { body: exchangeCodeBodySchema, response: { 200: exchangeCodeResponseSchema } } },
    async (request) => ({ jwt: await service.exchange(request, request.body.code) }),
  );

  app.post(
    apiPaths.addAdmin,
    { schema: { body: addAdminBodySchema, response: { 200: addAdminResponseSchema } } },
    async (request) => {
      const session = await firstAdminSession(context.auth, request);
      const exchangeCode = await service.addAdmin(request, session, request.body.callsign);
      return { admin_added: true as const, jwt_exchange_code: exchangeCode };
    },
  );
}
