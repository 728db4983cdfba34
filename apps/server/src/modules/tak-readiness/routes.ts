import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, takReadinessResponseSchema } from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import { TakReadinessService } from './service.js';

/** GET admin/tak-readiness (admin): the TAK side as the portal itself can see it. */
export function registerTakReadinessRoutes(app: FastifyInstance, context: RouteContext): void {
  const { config, certificates } = context.portal;
  const readiness = new TakReadinessService(config, certificates, context.now);

  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      apiPaths.takReadiness,
      { config: { access: 'admin' }, schema: { response: { 200: takReadinessResponseSchema } } },
      async (request) => {
        callerOf(request, 'admin');
        return readiness.readiness();
      },
    );
}
