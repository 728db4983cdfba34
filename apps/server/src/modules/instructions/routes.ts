import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, instructionsResponseSchema } from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';

/** GET instructions/user (valid user): the caller's TAK settings packages. */
export function registerInstructionsRoutes(app: FastifyInstance, context: RouteContext): void {
  const { instructions } = context.services;

  app.withTypeProvider<ZodTypeProvider>().get(
    apiPaths.instructions,
    {
      config: { access: 'member', mints: true, handsOutKey: true },
      schema: { response: { 200: instructionsResponseSchema } },
    },
    async (request, reply) => {
      const { actor } = callerOf(request);
      const body = await instructions.forUser(actor);
      // Each answer carries a fresh private key: never to be kept by a cache.
      return reply.header('cache-control', 'no-store').send(body);
    },
  );
}
