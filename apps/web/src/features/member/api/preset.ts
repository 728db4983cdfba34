import { queryOptions } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { apiJson } from '../../../lib/api-client';

export const memberKeys = {
  all: ['member'] as const,
  preset: () => [...memberKeys.all, 'preset'] as const,
  groups: () => [...memberKeys.all, 'groups'] as const,
};

/** GET me/groups: the signed-in member's TAK Server groups. */
export function myGroupsQueryOptions() {
  return queryOptions({
    queryKey: memberKeys.groups(),
    queryFn: () => apiJson(apiPaths.myGroups, 'memberGroups'),
  });
}

/** GET me/preset: the signed-in member's TAK team and role. */
export function myPresetQueryOptions() {
  return queryOptions({
    queryKey: memberKeys.preset(),
    queryFn: () => apiJson(apiPaths.myPreset, 'preset'),
  });
}
