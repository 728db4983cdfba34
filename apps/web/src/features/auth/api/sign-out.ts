import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { apiPaths } from '@callsign/contract';
import { apiRequest } from '../../../lib/api-client';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { clearStoredSession, readStored, STORAGE_KEYS } from '../../../lib/storage-keys';

/**
 * Ends the stored token on the server (POST token/sign-out, so a copy taken from this browser
 * stops working too), then forgets it with the callsign and the approval code. The storage is
 * cleared whatever the server answers: offline, the device still forgets the session.
 */
export async function endStoredSession(): Promise<void> {
  if (readStored(STORAGE_KEYS.token) !== null) {
    try {
      await apiRequest(apiPaths.signOut, { method: 'POST', bearer: true });
    } catch {
      // Expired or already ended, or no answer: nothing more this device can do.
    }
  }
  clearStoredSession();
}

/**
 * "Sign out on this device" (a shared phone): ends the stored token on the server and forgets it
 * (endStoredSession), drops the cached identity and every other answer, and opens /login afresh.
 */
export function useSignOut(): () => void {
  const client = useQueryClient();
  return useCallback(() => {
    void endStoredSession().then(() => {
      client.clear();
      reloadTo(paths.login.path);
    });
  }, [client]);
}
