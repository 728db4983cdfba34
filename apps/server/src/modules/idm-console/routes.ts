import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, idmConsoleResponseSchema } from '@callsign/contract';
import type { RouteContext } from '../route-context.js';

/** GET admin/idm-console: the configured identity-management console, for admins with their key. */
export function registerIdmConsoleRoutes(app: FastifyInstance, context: RouteContext): void {
  const { config } = context;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.idmConsole,
    { config: { access: 'admin' }, schema: { response: { 200: idmConsoleResponseSchema } } },
    () => Promise.resolve({ idm_console_url: config.idmConsoleUrl }),
  );
}
