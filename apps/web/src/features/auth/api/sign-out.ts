import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { apiPaths } from '@callsign/contract';
import { apiRequest } from '../../../lib/api-client';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { clearStoredSession, readStored, STORAGE_KEYS } from '../../../lib/storage-keys';

/**
 * Forgets the stored token, callsign and approval code at once, and ends the token on the server
 * (POST token/sign-out, so a copy taken from this browser stops working too). The request is
 * `keepalive`: it finishes after the page reloads. The promise settles when the server has
 * answered, or could not; offline, the device has still forgotten the session.
 */
export function endStoredSession(): Promise<void> {
  const token = readStored(STORAGE_KEYS.token);
  clearStoredSession();
  if (token === null) return Promise.resolve();
  return apiRequest(apiPaths.signOut, { method: 'POST', token, keepalive: true }).then(
    () => undefined,
    // Expired or ended already, or no answer: nothing more this device can do.
    () => undefined,
  );
}

/**
 * "Sign out on this device" (a shared phone): forgets the stored session and ends its token on
 * the server (endStoredSession), drops the cached identity and every other answer, and opens
 * /login afresh.
 */
export function useSignOut(): () => void {
  const client = useQueryClient();
  return useCallback(() => {
    void endStoredSession();
    client.clear();
    reloadTo(paths.login.path);
  }, [client]);
}
