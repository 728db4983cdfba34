import { queryOptions } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

/** GET admin/idm-console: the identity-management console the server is configured with. */
export async function fetchIdmConsoleUrl(): Promise<string> {
  const answer = await apiJson(apiPaths.idmConsole, 'idmConsole');
  return answer.idm_console_url;
}

export function idmConsoleQueryOptions() {
  return queryOptions({
    queryKey: adminKeys.idmConsole(),
    queryFn: fetchIdmConsoleUrl,
    staleTime: Infinity,
  });
}
