import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths, type BulkBody } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

export const bulkKeys = {
  all: [...adminKeys.all, 'bulk'] as const,
  check: (callsigns: readonly string[]) => [...bulkKeys.all, 'check', callsigns] as const,
  batches: () => [...bulkKeys.all, 'batch'] as const,
  batch: (batchId: string) => [...bulkKeys.batches(), batchId] as const,
};

/** How often the batch page asks again, so each slip's state follows its member. */
export const BATCH_REFRESH_MS = 5000;

/** POST enrollment/bulk/check: why each callsign cannot have a slip (nothing is made). */
export function checkQueryOptions(callsigns: readonly string[]) {
  return queryOptions({
    queryKey: bulkKeys.check(callsigns),
    queryFn: async () =>
      (
        await apiJson(apiPaths.bulkCheck, 'bulkCheck', {
          method: 'POST',
          body: { callsigns },
        })
      ).callsigns,
    enabled: callsigns.length > 0,
    staleTime: 0,
  });
}

/** GET enrollment/bulk/{batch_id}: the slips and where each stands, asked again every 5 s. */
export function batchQueryOptions(batchId: string, live = true) {
  return queryOptions({
    queryKey: bulkKeys.batch(batchId),
    queryFn: () => apiJson(apiPaths.batch(batchId), 'batch'),
    refetchInterval: live ? BATCH_REFRESH_MS : false,
  });
}

/** POST enrollment/bulk: one slip per callsign, or none (400 naming each bad one). */
export function useCreateBatch() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkBody) => apiJson(apiPaths.bulk, 'bulk', { method: 'POST', body }),
    // Slips are invite codes and members to be: every admin list may have changed.
    onSettled: () => client.invalidateQueries({ queryKey: adminKeys.all }),
  });
}

/** POST enrollment/bulk/{batch_id}/void: voids the slips nobody has used. */
export function useVoidBatch(batchId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      (await apiJson(apiPaths.voidBatch(batchId), 'voidBatch', { method: 'POST' })).voided,
    // Slips are invite codes and members to be: every admin list may have changed.
    onSettled: () => client.invalidateQueries({ queryKey: adminKeys.all }),
  });
}
