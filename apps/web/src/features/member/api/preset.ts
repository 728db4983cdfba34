import { queryOptions } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { apiJson } from '../../../lib/api-client';

/** GET me/preset: the signed-in member's TAK team and role. */
export function myPresetQueryOptions() {
  return queryOptions({
    queryKey: ['member', 'preset'] as const,
    queryFn: () => apiJson(apiPaths.myPreset, 'preset'),
  });
}
