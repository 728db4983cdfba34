import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { isPortalReachable, subscribeReachability } from '../lib/reachability';

/** Whether the portal can be reached now (lib/reachability.ts: from what requests saw). */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribeReachability, isPortalReachable, () => true);
}

/**
 * Says so while the portal cannot be reached (no network, or a network that does not reach it):
 * the pages come from the copy the app keeps on the device, and what needs the server (signing
 * in, downloads) waits for a connection.
 */
export function OfflineNotice() {
  const { t } = useTranslation();
  if (useOnline()) return null;
  return (
    <p role="status" className="bg-amber-100 px-4 py-2 text-center text-amber-950">
      {t('offline.notice')}
    </p>
  );
}
