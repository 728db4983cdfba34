import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { API_PREFIX, keyDownloadParamsSchema, keyDownloadQuerySchema } from '@callsign/contract';
import { actorOf } from '../auth/actor.js';
import type { RouteContext } from '../route-context.js';
import { KeyService } from './service.js';

/** GET enduserpfx/{callsign}?format=legacy|modern (valid user): the caller's own keystore. */
export function registerKeysRoutes(app: FastifyInstance, context: RouteContext): void {
  const keys = new KeyService(context.portal.certificates);

  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      `${API_PREFIX}/enduserpfx/:callsign`,
      { schema: { params: keyDownloadParamsSchema, querystring: keyDownloadQuerySchema } },
      async (request, reply) => {
        const actor = actorOf(await context.auth.validUser(request), request.ip);
        const key = await keys.download(actor, request.params.callsign, request.query.format);
        return reply
          .type('application/x-pkcs12')
          .header('content-disposition', `attachment; filename="${key.callsign}.pfx"`)
          .header('cache-control', 'no-store')
          .send(key.pfx);
      },
    );
}
