import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { Card } from '../../../components/card';
import { errorText } from '../../../lib/error-text';
import { detectCurrentPlatform, type Platform } from '../../../lib/platform';
import {
  useEnrollmentToken,
  useTrustPackageDownload,
  type EnrollmentToken,
  TRUST_PACKAGE_CLIENTS,
  type TrustPackageClient,
} from '../api/enrollment-token';
import {
  EnrollmentCodes,
  TrustQrCodes,
  takCodeDevice,
  type TakCodeDevice,
} from './enrollment-codes';

/** Where the page offers the TAK settings download, relative to this card (or not at all). */
export type SettingsDownloadPlace = 'above' | 'below' | 'none';

function Step({ children }: { children: ReactNode }) {
  return <li className="pl-1 text-stone-800">{children}</li>;
}

/** The trust package flavours a device is offered: both on a laptop, for either phone. */
const TRUST_FLAVOURS: Record<TakCodeDevice, readonly TrustPackageClient[]> = {
  android: ['atak'],
  ios: ['itak'],
  screen: TRUST_PACKAGE_CLIENTS,
};

/**
 * The trust package: on a phone its download (iTAK's flavour on an iPhone); on a laptop first a
 * QR code per app that the phone's camera opens (the unnamed package, no sign-in needed), then
 * the downloads to send on.
 */
function TrustStep({ device }: { device: TakCodeDevice }) {
  const { t } = useTranslation();
  const trust = useTrustPackageDownload();
  const flavours = TRUST_FLAVOURS[device];
  return (
    <Step>
      <div
        className="flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3"
        data-testid="tak-enroll-trust"
      >
        <p className="font-semibold">{t('tak_enroll.trust_title')}</p>
        <p>{t('tak_enroll.trust_why')}</p>
        {device === 'screen' && <TrustQrCodes />}
        {device === 'screen' && <p>{t('tak_enroll.trust_open.screen')}</p>}
        <div className="flex flex-col gap-2 sm:flex-row">
          {flavours.map((client) => (
            <Button
              key={client}
              variant="secondary"
              disabled={trust.isPending}
              onClick={() => {
                trust.mutate(client);
              }}
            >
              {flavours.length === 1
                ? t('tak_enroll.trust_download')
                : t(`tak_enroll.trust_download_for.${client}`)}
            </Button>
          ))}
        </div>
        {device !== 'screen' && <p>{t(`tak_enroll.trust_open.${device}`)}</p>}
        {trust.error !== null && (
          <p role="alert" className="text-red-800">
            {t('tak_enroll.failed')} {errorText(t, trust.error)}
          </p>
        )}
      </div>
    </Step>
  );
}

/** What ATAK shows when a scan fails is only "enrollment failed": what to check then. */
function ScanFailureHelp({ needsTrust }: { needsTrust: boolean }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="tak-enroll-failed" className="mt-5">
      <h3 id="tak-enroll-failed" className="text-lg font-semibold">
        {t('tak_enroll.scan_failed.title')}
      </h3>
      <p className="mt-1 text-stone-700">{t('tak_enroll.scan_failed.intro')}</p>
      <ul className="mt-1 list-disc space-y-1 pl-6 text-stone-700">
        <li>{t('tak_enroll.scan_failed.time')}</li>
        {needsTrust && <li>{t('tak_enroll.scan_failed.trust')}</li>}
        <li>{t('tak_enroll.scan_failed.code')}</li>
        <li>{t('tak_enroll.scan_failed.admin')}</li>
      </ul>
    </section>
  );
}

/** The steps with a code on show, in the order the device needs them. */
function ConnectSteps({
  token,
  device,
  busy,
  onNewCode,
}: {
  token: EnrollmentToken;
  device: TakCodeDevice;
  busy: boolean;
  onNewCode: () => void;
}) {
  const { t } = useTranslation();
  const needsTrust = !token.trusted_by_phones;
  const connect = needsTrust ? 'with_trust' : 'trusted';
  return (
    <>
      <h3 className="mt-5 text-lg font-semibold">{t('tak_enroll.steps_title')}</h3>
      <ol className="mt-2 flex list-decimal flex-col gap-3 pl-6" data-testid="tak-enroll-steps">
        <Step>{t(`tak_enroll.install.${device}`)}</Step>
        {needsTrust && <TrustStep device={device} />}
        <Step>
          <p>{t(`tak_enroll.connect.${device}.${connect}`)}</p>
          <EnrollmentCodes token={token} device={device} busy={busy} onNewCode={onNewCode} />
        </Step>
      </ol>
      <ScanFailureHelp needsTrust={needsTrust} />
    </>
  );
}

/**
 * "Connect ATAK or iTAK" (issue 16, issue 31): a one-time code the TAK app enrolls with, making
 * its own key on the phone. The card follows the device (`platform`, detected when not given):
 * on a phone the trust package first where phones need it, then "Open in ATAK" (Android) or the
 * iOS apps' codes; on a laptop the QR codes to scan with the phone. `settingsDownload` says where
 * the page offers the TAK settings zip, so the card points there only where it is.
 */
export function ConnectTakCard({
  platform,
  settingsDownload,
}: {
  platform?: Platform;
  settingsDownload: SettingsDownloadPlace;
}) {
  const { t } = useTranslation();
  const token = useEnrollmentToken();
  const device = takCodeDevice(platform ?? detectCurrentPlatform());
  const issued = token.code;

  return (
    <Card title={t('tak_enroll.title')}>
      <p className="mt-2 text-stone-700">{t('tak_enroll.intro')}</p>
      {issued === undefined ? (
        <Button className="mt-4 w-full sm:w-auto" disabled={token.isPending} onClick={token.make}>
          {token.isPending ? t('tak_enroll.making') : t('tak_enroll.show_code')}
        </Button>
      ) : (
        <ConnectSteps
          token={issued}
          device={device}
          busy={token.isPending}
          onNewCode={token.make}
        />
      )}
      {token.error !== null && (
        <p role="alert" className="mt-3 rounded-md bg-red-50 p-3 text-red-800">
          {t('tak_enroll.failed')} {errorText(t, token.error)}
        </p>
      )}
      {settingsDownload !== 'none' && (
        <p className="mt-3 text-sm text-stone-600">
          {t(`tak_enroll.fallback.${settingsDownload}`)}
        </p>
      )}
    </Card>
  );
}
