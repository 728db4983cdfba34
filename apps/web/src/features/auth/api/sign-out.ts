import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { clearStoredSession } from '../../../lib/storage-keys';

/**
 * "Sign out on this device" (a shared phone): forgets every stored token, the callsign and the
 * approval code, drops the cached identity and every other answer, and opens /login afresh.
 */
export function useSignOut(): () => void {
  const client = useQueryClient();
  return useCallback(() => {
    clearStoredSession();
    client.clear();
    reloadTo(paths.login.path);
  }, [client]);
}
