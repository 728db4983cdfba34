import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths, type KeyEntry } from '@callsign/contract';
import { apiJson } from '../../../lib/api-client';

export const ownKeysKeys = {
  all: ['own-keys'] as const,
  list: () => [...ownKeysKeys.all, 'list'] as const,
};

/** GET me/keys with the member's key: every key, newest first, the one in use marked. */
export async function fetchOwnKeys(): Promise<KeyEntry[]> {
  const answer = await apiJson(apiPaths.myKeys, 'keyList');
  return answer.keys;
}

export function ownKeysQueryOptions() {
  return queryOptions({ queryKey: ownKeysKeys.list(), queryFn: fetchOwnKeys });
}

/**
 * GET me/keys' `renew_ca_by`: during a CA rollover, the date by which the member gets a new key
 * (one of theirs is on the issuing CA being retired); null otherwise.
 */
export function caRenewalQueryOptions() {
  return queryOptions({
    queryKey: [...ownKeysKeys.all, 'ca-renewal'] as const,
    queryFn: async (): Promise<string | null> =>
      (await apiJson(apiPaths.myKeys, 'keyList')).renew_ca_by,
  });
}

/** DELETE me/keys/{serial}: revokes one of the member's own keys. */
export async function revokeOwnKey(serial: string): Promise<void> {
  await apiJson(apiPaths.myKey(serial), 'revokeKey', { method: 'DELETE' });
}

export function useRevokeOwnKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeOwnKey,
    onSettled: () => client.invalidateQueries({ queryKey: ownKeysKeys.all }),
  });
}
