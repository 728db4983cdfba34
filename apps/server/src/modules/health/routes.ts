import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { apiPaths, type HealthcheckResponse } from '@callsign/contract';
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
  app.get(apiPaths.healthcheck, async (request): Promise<HealthcheckResponse> => {
    try {
      await sql`select 1`.execute(db);
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      throw new ServiceUnavailableError('The database is unreachable');
    }
    return { healthcheck: 'success', ...info };
  });
}
