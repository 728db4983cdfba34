import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, idmConsoleResponseSchema } from '@callsign/contract';
import { ForbiddenError } from '../../errors.js';
import type { RouteContext } from '../route-context.js';

/** GET admin/idm-console: the configured identity-management console, for admins with their key. */
export function registerAdminConsoleRoutes(app: FastifyInstance, context: RouteContext): void {
  const { auth, portal } = context;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.idmConsole,
    { schema: { response: { 200: idmConsoleResponseSchema } } },
    async (request) => {
      const admin = await auth.admin(request);
      if (admin.identity.type !== 'mtls') throw new ForbiddenError('Use your key on the mTLS face');
      return { idm_console_url: portal.config.idmConsoleUrl };
    },
  );
}
