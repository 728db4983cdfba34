import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { EnlargeableImage } from '../../../components/enlarge-image-dialog';
import { MtlsDialog } from '../../../components/info-dialogs';
import { SegmentedChoice } from '../../../components/segmented-choice';
import passwordIsCallsign from '../illustrations/password-is-callsign.svg';
import { errorText } from '../../../lib/error-text';
import { mtlsOrigin } from '../../../lib/hosts';
import { paths } from '../../../lib/paths';
import { detectCurrentPlatform, type Platform } from '../../../lib/platform';
import { useKeyDownload } from '../api/key-download';
import type { GuideOs } from './os-guide';

/** The key page's OS options, with their guide keys. */
export const KEY_PAGE_OSES: readonly { os: Platform; guide: GuideOs }[] = [
  { os: 'Windows', guide: 'windows' },
  { os: 'MacOS', guide: 'macos' },
  { os: 'Android', guide: 'android' },
  { os: 'iOS', guide: 'ios' },
  { os: 'Linux', guide: 'linux' },
];

const OsGuide = lazy(() => import('./os-guide'));

/** Where "Open the portal with your key" goes: the mTLS face, admin area or the member's home. */
export function keyNavigationUrl(isAdmin: boolean, callsign: string | null, origin = mtlsOrigin()) {
  return `${origin}${isAdmin ? paths.admin.home.path : paths.users.home.href(callsign ?? '')}`;
}

/** /login/createmtls: download the key, install it with the guide of the device, go on. */
export function CreateMtlsPage({
  callsign,
  isAdmin,
  initialOs,
}: {
  callsign: string | null;
  isAdmin: boolean;
  initialOs?: Platform;
}) {
  const { t } = useTranslation();
  const [os, setOs] = useState<Platform>(() => initialOs ?? detectCurrentPlatform());
  const [mtlsOpen, setMtlsOpen] = useState(false);
  const download = useKeyDownload();
  const known = callsign !== null && callsign !== '';
  const guide = KEY_PAGE_OSES.find((option) => option.os === os)?.guide ?? 'android';

  return (
    <div className="mx-auto w-full max-w-2xl px-4 py-6">
      <h1 className="text-2xl font-bold">{t('keyguide.page.title')}</h1>
      <p className="mt-3 text-stone-700">{t('keyguide.page.intro')}</p>
      <button
        type="button"
        className="mt-2 min-h-11 rounded text-emerald-900 underline underline-offset-4 focus-visible:outline-3 focus-visible:outline-amber-500"
        onClick={() => {
          setMtlsOpen(true);
        }}
      >
        {t('createmtls.what_is_key')}
      </button>

      <section className="mt-5 flex flex-col gap-3 rounded-lg border border-stone-200 bg-white p-4">
        <Button
          onClick={() => {
            if (!known) return;
            download.mutate(callsign);
          }}
          disabled={download.isPending}
        >
          {download.isPending ? t('keyguide.page.downloading') : t('keyguide.page.downloadButton')}
        </Button>
        <div aria-live="polite">
          {download.isError && (
            <p role="alert" className="text-red-700">
              {errorText(t, download.error)}
            </p>
          )}
          {download.isSuccess && (
            <p className="text-emerald-900">{t('keyguide.page.downloaded')}</p>
          )}
          {!known && <p className="text-red-700">{t('keyguide.page.callsignMissing')}</p>}
        </div>
        <div className="flex items-start gap-3">
          <div className="w-20 shrink-0">
            <EnlargeableImage
              src={passwordIsCallsign}
              alt={t('keyguide.illustrations.passwordIsCallsign')}
            />
          </div>
          <div className="space-y-2 text-sm text-stone-700">
            <p className="font-semibold text-stone-900">
              {t('keyguide.page.passwordNotice', { callsign: callsign ?? '' })}
            </p>
            <p>{t('keyguide.page.newKeyNotice')}</p>
          </div>
        </div>
        <details className="rounded border border-stone-200 p-3">
          <summary className="cursor-pointer font-semibold">
            {t('keyguide.page.whatIsThis.title')}
          </summary>
          <p className="mt-2 text-stone-700">
            {t('keyguide.page.whatIsThis.body', { callsign: callsign ?? '' })}
          </p>
        </details>
      </section>

      <SegmentedChoice
        className="mt-6"
        legend={t('keyguide.page.osChooserLabel')}
        legendClassName="text-lg font-bold"
        name="os"
        options={KEY_PAGE_OSES.map((option) => ({
          value: option.os,
          label: t(`keyguide.os.${option.guide}.name`),
        }))}
        value={os}
        onChange={setOs}
        gridClassName="grid-cols-2 sm:grid-cols-5"
      />

      <section className="mt-5 rounded-lg border border-stone-200 bg-white p-4">
        <Suspense fallback={<p>{t('loading')}</p>}>
          <OsGuide os={guide} callsign={callsign ?? ''} />
        </Suspense>
      </section>

      <a
        href={keyNavigationUrl(isAdmin, callsign)}
        className="mt-6 inline-flex min-h-11 w-full items-center justify-center rounded-md bg-emerald-800 px-4 py-2 font-semibold text-white hover:bg-emerald-900 focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-amber-500"
      >
        {t('keyguide.page.navigateLink')}
      </a>
      <MtlsDialog open={mtlsOpen} onOpenChange={setMtlsOpen} />
    </div>
  );
}
