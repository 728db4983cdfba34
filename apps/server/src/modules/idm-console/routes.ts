import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, idmConsoleResponseSchema } from '@callsign/contract';
import type { RouteContext } from '../route-context.js';

/**
 * GET admin/idm-console: the identity-management console, for admins with their key, and whether
 * the operator set one up (the web app links to it only then).
 */
export function registerIdmConsoleRoutes(app: FastifyInstance, context: RouteContext): void {
  const { config } = context;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.idmConsole,
    { config: { access: 'admin' }, schema: { response: { 200: idmConsoleResponseSchema } } },
    () =>
      Promise.resolve({
        idm_console_url: config.idmConsoleUrl,
        configured: config.idmConsoleConfigured,
      }),
  );
}
