import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  keyDownloadParamsSchema,
  keyDownloadQuerySchema,
  keystoreResponseSchema,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import { KeyService } from './service.js';

/** GET enduserpfx/{callsign}?format=legacy|modern (valid user): the caller's own keystore. */
export function registerKeysRoutes(app: FastifyInstance, context: RouteContext): void {
  const keys = new KeyService(context.portal.certificates);

  app.withTypeProvider<ZodTypeProvider>().get(
    `${API_PREFIX}/enduserpfx/:callsign`,
    {
      config: { access: 'member', mints: true },
      schema: {
        params: keyDownloadParamsSchema,
        querystring: keyDownloadQuerySchema,
        response: {
          200: {
            description: 'The keystore: PKCS#12, password the callsign',
            content: { 'application/x-pkcs12': { schema: keystoreResponseSchema } },
          },
        },
      },
    },
    async (request, reply) => {
      const { actor } = callerOf(request, 'member');
      const key = await keys.download(actor, request.params.callsign, request.query.format);
      // The typed reply wants the File the contract documents; Fastify sends a Buffer as it is.
      return (reply as FastifyReply)
        .type('application/x-pkcs12')
        .header('content-disposition', `attachment; filename="${key.callsign}.pfx"`)
        .header('cache-control', 'no-store')
        .send(key.pfx);
    },
  );
}
