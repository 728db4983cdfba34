import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { errorText } from '../../../lib/error-text';
import { useKeyDownload } from '../api/key-download';

/**
 * A new browser key (.pfx) for a member who still has a working one: downloaded with the key in
 * use on the mTLS face, installed like the first one (the password is the callsign).
 * `onDownloaded` runs once the new key exists (the page refreshes its list of keys).
 */
export function NewKeyButton({
  callsign,
  onDownloaded,
}: {
  callsign: string;
  onDownloaded?: () => void;
}) {
  const { t } = useTranslation();
  const download = useKeyDownload('key');
  return (
    <div className="flex flex-col gap-1">
      <Button
        disabled={download.isPending || callsign === ''}
        onClick={() => {
          download.mutate(callsign, { onSettled: onDownloaded });
        }}
      >
        {download.isPending ? t('keyguide.page.downloading') : t('keys.new.pfx')}
      </Button>
      <p aria-live="polite" className="text-sm">
        {download.isError && <span className="text-red-700">{errorText(t, download.error)}</span>}
        {download.isSuccess && (
          <span className="text-emerald-900">{t('keys.new.pfx_done', { callsign })}</span>
        )}
      </p>
    </div>
  );
}
