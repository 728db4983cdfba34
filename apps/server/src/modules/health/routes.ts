import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql, type Kysely } from 'kysely';
import { apiPaths, healthcheckResponseSchema } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { ServiceUnavailableError } from '../../errors.js';

export interface HealthInfo {
  dns: string;
  version: string;
  deployment: string;
}

/** GET healthcheck: 200 while the database answers, 503 with a detail when it does not. */
export function registerHealthRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  info: HealthInfo,
): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    apiPaths.healthcheck,
    // Open on both faces: load balancers and monitors ask without a key.
    { config: { access: 'ungated' }, schema: { response: { 200: healthcheckResponseSchema } } },
    async (request) => {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        throw new ServiceUnavailableError('The database is unreachable');
      }
      return { healthcheck: 'success' as const, ...info };
    },
  );
}
