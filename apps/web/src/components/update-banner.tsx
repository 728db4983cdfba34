import { useTranslation } from 'react-i18next';
import { Button } from './button';

/** Offers the new build once its service worker is ready; reloading switches to it. */
export function UpdateBanner({ onReload }: { onReload: () => void }) {
  const { t } = useTranslation();
  return (
    <div
      role="status"
      className="fixed inset-x-0 bottom-0 z-30 flex flex-wrap items-center justify-center gap-3 border-t border-stone-300 bg-white px-4 py-3 shadow-lg"
    >
      <p>{t('update.available')}</p>
      <Button onClick={onReload}>{t('update.reload')}</Button>
    </div>
  );
}
