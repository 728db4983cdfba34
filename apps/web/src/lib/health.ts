import { apiPaths, type HealthcheckResponse } from '@callsign/contract';

/** GET /api/v1/healthcheck: the deployment's name and version for the header. */
export async function fetchHealth(signal?: AbortSignal): Promise<HealthcheckResponse> {
  const response = await fetch(apiPaths.healthcheck, {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (!response.ok) throw new Error(`Health check answered ${response.status}`);
  return (await response.json()) as HealthcheckResponse;
}
