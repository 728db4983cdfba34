import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** Whether the browser has a network (it flips with the `online` and `offline` events). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
}

/**
 * Says so while the device is offline: the pages come from the copy the app keeps on the device,
 * and what needs the server (signing in, downloads) waits for a connection.
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
