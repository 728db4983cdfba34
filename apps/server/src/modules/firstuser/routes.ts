import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  addAdminBodySchema,
  addAdminResponseSchema,
  apiPaths,
  checkAdminCodeQuerySchema,
  checkAdminCodeResponseSchema,
  exchangeCodeBodySchema,
  exchangeCodeResponseSchema,
  type CheckAdminCodeResponse,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';

/** GET firstuser/check-code, POST token/code/exchange and POST firstuser/add-admin. */
export function registerFirstuserRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = context.services.firstuser;

  app.get(
    apiPaths.checkAdminCode,
    {
      config: {
        access: 'anonymous',
        failureBudget: { failedAnswer: (answer: CheckAdminCodeResponse) => !answer.code_ok },
      },
      schema: {
        querystring: checkAdminCodeQuerySchema,
        response: { 200: checkAdminCodeResponseSchema },
      },
    },
    async (request) => ({
      code_ok: await service.checkAdminCode(request.query.temp_admin_code),
    }),
  );

  app.post(
    apiPaths.exchangeCode,
    {
      config: { access: 'anonymous', failureBudget: true },
      schema: { body: exchangeCodeBodySchema, response: { 200: exchangeCodeResponseSchema } },
    },
    async (request) => ({ jwt: await service.exchange(request.ip, request.body.code) }),
  );

  app.post(
    apiPaths.addAdmin,
    {
      config: { access: 'first-admin' },
      schema: { body: addAdminBodySchema, response: { 200: addAdminResponseSchema } },
    },
    async (request) => {
      const { session } = callerOf(request);
      const exchangeCode = await service.addAdmin(request.ip, session, request.body.callsign);
      return { admin_added: true as const, jwt_exchange_code: exchangeCode };
    },
  );
}
