import { z } from 'zod';

/** GET /api/v1/healthcheck (docs/api.md). */
export const healthcheckResponseSchema = z.object({
  healthcheck: z.literal('success'),
  dns: z.string(),
  version: z.string(),
  deployment: z.string(),
});
export type HealthcheckResponse = z.infer<typeof healthcheckResponseSchema>;
