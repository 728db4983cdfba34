import { queryOptions } from '@tanstack/react-query';
import { ACCEPTANCE_POLL_INTERVAL_MS, apiPaths } from '@callsign/contract';
import { ApiError, apiJson } from '../../../lib/api-client';
import { STORAGE_KEYS, readStored } from '../../../lib/storage-keys';

export const enrollmentKeys = {
  all: ['enrollment'] as const,
  acceptance: () => [...enrollmentKeys.all, 'acceptance'] as const,
};

/** Where the enrollee stands: still waiting, approved, or revoked by an admin (for good). */
export type AcceptanceStatus = 'waiting' | 'accepted' | 'revoked';

/** GET have-i-been-accepted: waiting without a call when there is no token. */
export async function fetchAcceptance(): Promise<AcceptanceStatus> {
  if (readStored(STORAGE_KEYS.token) === null) return 'waiting';
  try {
    const answer = await apiJson(apiPaths.acceptance, 'acceptance', { bearer: true });
    if (answer.state === 'revoked') return 'revoked';
    return answer.have_i_been_accepted ? 'accepted' : 'waiting';
  } catch (error) {
    if (error instanceof ApiError)
      throw new Error(`Unexpected status code: ${error.status}`, { cause: error });
    throw error;
  }
}

/** Polls every 5 s while waiting; stops once accepted or revoked. */
export function acceptanceQueryOptions() {
  return queryOptions({
    queryKey: enrollmentKeys.acceptance(),
    queryFn: fetchAcceptance,
    refetchInterval: (query) =>
      query.state.data === 'accepted' || query.state.data === 'revoked'
        ? false
        : ACCEPTANCE_POLL_INTERVAL_MS,
    refetchIntervalInBackground: true,
    retry: false,
  });
}
