import { queryOptions } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { apiJson, type ApiResponse } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

/** GET admin/idm-console: the identity-management console, and whether one is set up. */
export function fetchIdmConsole(): Promise<ApiResponse<'idmConsole'>> {
  return apiJson(apiPaths.idmConsole, 'idmConsole');
}

export function idmConsoleQueryOptions() {
  return queryOptions({
    queryKey: adminKeys.idmConsole(),
    queryFn: fetchIdmConsole,
    staleTime: Infinity,
  });
}
