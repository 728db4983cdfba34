import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  apiPaths,
  type CaExpiryResponse,
  type ExpiringResponse,
  type KeyEntry,
  type RenewalCodeResponse,
} from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

const KEYS_FAILED = 'Failed to get the keys';

/** GET people/{callsign}/keys: every key of a member, newest first. */
export async function fetchPersonKeys(callsign: string): Promise<KeyEntry[]> {
  try {
    return (await apiJson(apiPaths.personKeys(callsign), 'keyList')).keys;
  } catch (error) {
    return adminFailure(error, KEYS_FAILED);
  }
}

export function personKeysQueryOptions(callsign: string) {
  return queryOptions({
    queryKey: adminKeys.personKeys(callsign),
    queryFn: () => fetchPersonKeys(callsign),
  });
}

/** DELETE people/{callsign}/keys/{serial}: an admin revokes one key of a member. */
export async function revokePersonKey(callsign: string, serial: string): Promise<void> {
  try {
    await apiJson(apiPaths.personKey(callsign, serial), 'revokeKey', { method: 'DELETE' });
  } catch (error) {
    adminFailure(error, 'Failed to revoke the key');
  }
}

/**
 * POST people/{callsign}/renewal-code: a single-use code for a member. `revokeKeys` (needed when
 * they still hold working keys, a lost phone) revokes those keys with it.
 */
export async function createRenewalCode({
  callsign,
  revokeKeys,
}: {
  callsign: string;
  revokeKeys: boolean;
}): Promise<RenewalCodeResponse> {
  try {
    return await apiJson(apiPaths.renewalCode(callsign), 'renewalCode', {
      method: 'POST',
      ...(revokeKeys ? { body: { revoke_keys: true } } : {}),
    });
  } catch (error) {
    return adminFailure(error, 'Failed to make a renewal code');
  }
}

/** GET admin/expiring?days=N: members whose newest key ends within N days. */
export async function fetchExpiring(days: number): Promise<ExpiringResponse['members']> {
  try {
    const answer = await apiJson(apiPaths.expiring, 'expiring', { query: { days: String(days) } });
    return answer.members;
  } catch (error) {
    return adminFailure(error, KEYS_FAILED);
  }
}

export function expiringQueryOptions(days: number) {
  return queryOptions({ queryKey: adminKeys.expiring(days), queryFn: () => fetchExpiring(days) });
}

/** GET admin/ca: when the issuing and root CAs expire. */
export function caExpiryQueryOptions() {
  return queryOptions({
    queryKey: adminKeys.caExpiry(),
    queryFn: async (): Promise<CaExpiryResponse> => {
      try {
        return await apiJson(apiPaths.caExpiry, 'caExpiry');
      } catch (error) {
        return adminFailure(error, 'Failed to get the CA');
      }
    },
    staleTime: Infinity,
  });
}

function useInvalidateKeys() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: adminKeys.keys() });
}

export function useRevokePersonKey() {
  const onSettled = useInvalidateKeys();
  return useMutation({
    mutationFn: ({ callsign, serial }: { callsign: string; serial: string }) =>
      revokePersonKey(callsign, serial),
    onSettled,
  });
}
