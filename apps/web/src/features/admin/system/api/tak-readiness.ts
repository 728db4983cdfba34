import { queryOptions } from '@tanstack/react-query';
import { apiPaths, type TakReadinessResponse } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

/** GET admin/tak-readiness: the TAK side as the portal sees it. */
export function fetchTakReadiness(): Promise<TakReadinessResponse> {
  return apiJson(apiPaths.takReadiness, 'takReadiness');
}

export function takReadinessQueryOptions() {
  return queryOptions({ queryKey: adminKeys.takReadiness(), queryFn: fetchTakReadiness });
}
