import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, buttonClass } from '../../../components/button';
import { LinkQrCode } from '../../../components/share-link';
import { isPhone, type Platform } from '../../../lib/platform';
import {
  TRUST_PACKAGE_CLIENTS,
  formatCountdown,
  secondsLeft,
  unnamedTrustPackageUrl,
  type EnrollmentToken,
} from '../api/enrollment-token';

/**
 * Where the code is shown, which decides how it is offered: on an Android phone ATAK opens from
 * a `tak://` link on the same phone; on an iPhone the iOS apps' QR codes (to scan from another
 * screen or a screenshot) and the code to type; on any other screen every QR code, to scan with
 * the phone's TAK app, and never a link that opens ATAK "on this phone".
 */
export type TakCodeDevice = 'android' | 'ios' | 'screen';

export function takCodeDevice(platform: Platform): TakCodeDevice {
  if (!isPhone(platform)) return 'screen';
  return platform === 'iOS' ? 'ios' : 'android';
}

/** The current time, once a second. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, 1000);
    return () => {
      window.clearInterval(timer);
    };
  }, []);
  return now;
}

export const QR_SIZE = 200;

type QrCodeOf = 'atak' | 'itak' | 'registration';

/** The QR codes each device shows, in order: none on an Android phone (ATAK opens by link). */
const QR_CODES_ON: Record<TakCodeDevice, readonly QrCodeOf[]> = {
  android: [],
  ios: ['registration', 'itak'],
  screen: ['atak', 'itak', 'registration'],
};

export function QrSection({
  id,
  title,
  link,
  label,
}: Record<'id' | 'title' | 'link' | 'label', string>) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-2">
      <h4 id={id} className="font-semibold">
        {title}
      </h4>
      {/* Pushed to the foot of the section: a row of codes lines up under titles of any length. */}
      <div className="mt-auto">
        <LinkQrCode link={link} label={label} size={QR_SIZE} />
      </div>
    </section>
  );
}

/**
 * The trust package as a QR code per app, for the phone's camera: the unnamed package on the
 * public face, which the phone fetches signed in nowhere (a laptop's card, an enrollment station).
 */
export function TrustQrCodes() {
  const { t } = useTranslation();
  return (
    <>
      <p>{t('tak_enroll.trust_scan')}</p>
      <div className="grid gap-5 sm:grid-cols-2">
        {TRUST_PACKAGE_CLIENTS.map((client) => (
          <QrSection
            key={client}
            id={`tak-enroll-trust-${client}`}
            title={t(`tak_enroll.${client}_title`)}
            link={unnamedTrustPackageUrl(client)}
            label={t(`tak_enroll.trust_qr.${client}`)}
          />
        ))}
      </div>
    </>
  );
}

/**
 * A one-time enrollment code in the forms the device can use (see `TakCodeDevice`): ATAK's QR
 * code or its `tak://` link, iTAK's server QR code, the registration QR code TAK Tracker and
 * TAKAware scan (with the code in it), and the user name and code to type. Counts down to the
 * code's expiry; "New code" voids this one.
 */
export function EnrollmentCodes({
  token,
  device,
  onNewCode,
  busy,
}: {
  token: EnrollmentToken;
  device: TakCodeDevice;
  onNewCode: () => void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const left = secondsLeft(token.expires_at, useNow());
  const expired = left === 0;

  // Each QR code: the app it is for and what it holds.
  const codes: Record<QrCodeOf, { title: string; link: string; label: string }> = {
    atak: {
      title: t('tak_enroll.atak_title'),
      link: token.atak_uri,
      label: t('tak_enroll.atak_qr'),
    },
    itak: {
      title: t('tak_enroll.itak_title'),
      link: token.itak_qr,
      label: t('tak_enroll.itak_qr'),
    },
    registration: {
      title: t('tak_enroll.registration_title'),
      link: token.registration_qr,
      label: t('tak_enroll.registration_qr'),
    },
  };
  const shown = QR_CODES_ON[device];

  return (
    <div className="mt-3 flex flex-col gap-4">
      <p className={expired ? 'font-semibold text-red-800' : 'text-stone-700'}>
        {expired
          ? t('tak_enroll.expired')
          : t('tak_enroll.valid_for', { time: formatCountdown(left) })}
      </p>
      <p aria-live="polite" className="sr-only">
        {expired ? t('tak_enroll.expired') : ''}
      </p>
      {!expired && device === 'android' && (
        <a className={buttonClass('primary', 'w-full text-center')} href={token.atak_uri}>
          {t('tak_enroll.open_atak')}
        </a>
      )}
      {!expired && shown.length > 0 && (
        <div className={`grid gap-5 sm:grid-cols-2 ${shown.length > 2 ? 'lg:grid-cols-3' : ''}`}>
          {shown.map((of) => (
            <QrSection key={of} id={`tak-enroll-${of}`} {...codes[of]} />
          ))}
        </div>
      )}
      {!expired && (
        <dl className="grid grid-cols-1 gap-x-4 gap-y-1 rounded-lg bg-stone-100 p-4 sm:grid-cols-[auto_1fr] sm:items-baseline sm:gap-y-2">
          <dt className="font-semibold">{t('tak_enroll.username')}</dt>
          <dd
            className="mb-2 font-mono text-2xl break-all sm:mb-0"
            data-testid="tak-enroll-username"
          >
            {token.username}
          </dd>
          <dt className="font-semibold">{t('tak_enroll.password')}</dt>
          <dd
            className="mb-2 font-mono text-2xl tracking-wider whitespace-nowrap sm:mb-0"
            data-testid="tak-enroll-token"
          >
            {token.token}
          </dd>
        </dl>
      )}
      <Button variant="secondary" disabled={busy} onClick={onNewCode}>
        {busy ? t('tak_enroll.making') : t('tak_enroll.new_code')}
      </Button>
    </div>
  );
}
