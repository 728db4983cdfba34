import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths, type Preset, type PresetResponse } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

const FAILED = 'Failed to save the preset';

/** GET people/{callsign}/preset (admin): the member's TAK team and role. */
export function presetQueryOptions(callsign: string) {
  return queryOptions({
    queryKey: adminKeys.preset(callsign),
    queryFn: async (): Promise<PresetResponse> => {
      try {
        return await apiJson(apiPaths.preset(callsign), 'preset');
      } catch (error) {
        return adminFailure(error, FAILED);
      }
    },
  });
}

/** PUT people/{callsign}/preset (admin). */
export function useSetPreset(callsign: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (preset: Preset): Promise<PresetResponse> => {
      try {
        return await apiJson(apiPaths.preset(callsign), 'preset', { method: 'PUT', body: preset });
      } catch (error) {
        return adminFailure(error, FAILED);
      }
    },
    onSuccess: (saved) => {
      client.setQueryData(adminKeys.preset(callsign), saved);
    },
  });
}
