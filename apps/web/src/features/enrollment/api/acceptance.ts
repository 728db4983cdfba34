import { queryOptions } from '@tanstack/react-query';
import { ACCEPTANCE_POLL_INTERVAL_MS, apiPaths } from '@callsign/contract';
import { ApiError, apiJson } from '../../../lib/api-client';
import { STORAGE_KEYS, readStored } from '../../../lib/storage-keys';

export const enrollmentKeys = {
  all: ['enrollment'] as const,
  acceptance: () => [...enrollmentKeys.all, 'acceptance'] as const,
};

/** GET have-i-been-accepted: false without a call when there is no token (spec §7). */
export async function fetchAcceptance(): Promise<boolean> {
  if (readStored(STORAGE_KEYS.token) === null) return false;
  try {
    const answer = await apiJson(apiPaths.acceptance, 'acceptance', { bearer: true });
    return answer.have_i_been_accepted;
  } catch (error) {
    if (error instanceof ApiError)
      throw new Error(`Unexpected status code: ${error.status}`, { cause: error });
    throw error;
  }
}

/** Polls every 5 s until accepted, then stops (spec §4). */
export function acceptanceQueryOptions() {
  return queryOptions({
    queryKey: enrollmentKeys.acceptance(),
    queryFn: fetchAcceptance,
    refetchInterval: (query) => (query.state.data === true ? false : ACCEPTANCE_POLL_INTERVAL_MS),
    refetchIntervalInBackground: true,
    retry: false,
  });
}
