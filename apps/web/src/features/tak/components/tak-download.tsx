import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { Dialog } from '../../../components/dialog';
import { detectCurrentPlatform, type Platform } from '../../../lib/platform';
import {
  TAK_PACKAGE_CHOICES,
  defaultTakChoice,
  useTakDownload,
  type TakPackageChoice,
} from '../api/tak-packages';

/**
 * "Download TAK settings": a dialog to choose the zip (iOS, Android or Windows, tracker), a
 * loading state while the portal builds it, then a success or an error dialog.
 */
export function TakDownloadButton({
  variant = 'secondary',
  className = '',
  platform,
}: {
  variant?: 'primary' | 'secondary';
  className?: string;
  /** The device, for the default choice; detected when not given. */
  platform?: Platform;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState<TakPackageChoice>(() =>
    defaultTakChoice(platform ?? detectCurrentPlatform()),
  );
  const download = useTakDownload();

  const close = (next: boolean) => {
    // The download cannot be called back: the dialog stays while it runs.
    if (download.isPending) return;
    setOpen(next);
    if (!next) download.reset();
  };

  let title = t('tak.download.title');
  let body;
  let footer;
  if (download.isSuccess) {
    title = t('tak.download.success_title');
    body = (
      <div className="space-y-2 text-stone-800">
        <p>{t('tak.download.success_text', { filename: download.data })}</p>
        <p>{t(`tak.download.next.${choice}`)}</p>
      </div>
    );
    footer = (
      <Button
        onClick={() => {
          close(false);
        }}
      >
        {t('dialogs.ok')}
      </Button>
    );
  } else if (download.isError) {
    title = t('tak.download.error_title');
    body = (
      <p role="alert" className="text-red-700">
        {download.error.message}
      </p>
    );
    footer = (
      <>
        <Button
          variant="secondary"
          onClick={() => {
            close(false);
          }}
        >
          {t('dialogs.close')}
        </Button>
        <Button
          onClick={() => {
            download.reset();
          }}
        >
          {t('tak.download.try_again')}
        </Button>
      </>
    );
  } else {
    body = (
      <fieldset disabled={download.isPending}>
        <legend className="mb-2 text-stone-800">{t('tak.download.choose')}</legend>
        <div className="flex flex-col gap-2">
          {TAK_PACKAGE_CHOICES.map((option) => (
            <label
              key={option}
              className="flex min-h-11 cursor-pointer items-start gap-3 rounded-md border border-stone-300 p-3 has-checked:border-emerald-800 has-checked:bg-emerald-50 has-focus-visible:outline-3 has-focus-visible:outline-amber-500"
            >
              <input
                type="radio"
                name="tak-package"
                value={option}
                checked={choice === option}
                onChange={() => {
                  setChoice(option);
                }}
                className="mt-1 h-4 w-4 accent-emerald-800"
              />
              <span>
                <span className="block font-semibold">{t(`tak.download.options.${option}`)}</span>
                <span className="block text-sm text-stone-700">
                  {t(`tak.download.hints.${option}`)}
                </span>
              </span>
            </label>
          ))}
        </div>
        <p className="mt-3 text-sm text-stone-700">{t('tak.download.new_key_notice')}</p>
        <p role="status" aria-live="polite" className="mt-2 font-semibold text-emerald-900">
          {download.isPending ? t('tak.download.loading') : ''}
        </p>
      </fieldset>
    );
    footer = (
      <>
        <Button
          variant="secondary"
          disabled={download.isPending}
          onClick={() => {
            close(false);
          }}
        >
          {t('dialogs.cancel')}
        </Button>
        <Button
          disabled={download.isPending}
          onClick={() => {
            download.mutate(choice);
          }}
        >
          {download.isPending ? t('tak.download.loading_button') : t('tak.download.submit')}
        </Button>
      </>
    );
  }

  return (
    <>
      <Button
        variant={variant}
        className={className}
        onClick={() => {
          setOpen(true);
        }}
      >
        {t('tak_card.download_zip')}
      </Button>
      <Dialog open={open} onOpenChange={close} title={title} footer={footer}>
        {body}
      </Dialog>
    </>
  );
}
