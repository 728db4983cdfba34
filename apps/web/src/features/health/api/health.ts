import { queryOptions } from '@tanstack/react-query';
import { apiPaths, type HealthcheckResponse } from '@callsign/contract';
import { apiJson } from '../../../lib/api-client';

export const healthKeys = {
  all: ['health'] as const,
  check: () => [...healthKeys.all, 'check'] as const,
};

/** GET healthcheck: the deployment's name for the header; a failure is only logged. */
export async function fetchHealth(): Promise<HealthcheckResponse | null> {
  try {
    return await apiJson(apiPaths.healthcheck, 'healthcheck');
  } catch (error) {
    console.error('Health check failed', error);
    return null;
  }
}

export function healthQueryOptions() {
  return queryOptions({
    queryKey: healthKeys.check(),
    queryFn: fetchHealth,
    staleTime: 5 * 60_000,
    retry: false,
  });
}
