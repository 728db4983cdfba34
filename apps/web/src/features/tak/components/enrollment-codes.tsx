import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, buttonClass } from '../../../components/button';
import { LinkQrCode } from '../../../components/share-link';
import { formatCountdown, secondsLeft, type EnrollmentToken } from '../api/enrollment-token';

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

/**
 * A one-time enrollment code shown both ways the TAK apps take it: ATAK's QR code (and the
 * `tak://` link that opens ATAK on this phone), and iTAK's server QR code with the user name and
 * code to type. Counts down to the code's expiry; "New code" voids this one.
 */
export function EnrollmentCodes({
  token,
  onNewCode,
  busy,
}: {
  token: EnrollmentToken;
  onNewCode: () => void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const left = secondsLeft(token.expires_at, useNow());
  const expired = left === 0;

  return (
    <div className="mt-4 flex flex-col gap-4">
      <p className={expired ? 'font-semibold text-red-800' : 'text-stone-700'}>
        {expired
          ? t('tak_enroll.expired')
          : t('tak_enroll.valid_for', { time: formatCountdown(left) })}
      </p>
      <p aria-live="polite" className="sr-only">
        {expired ? t('tak_enroll.expired') : ''}
      </p>
      {!expired && (
        <div className="grid gap-5 sm:grid-cols-2">
          <section aria-labelledby="tak-enroll-atak" className="flex flex-col gap-3">
            <h3 id="tak-enroll-atak" className="text-lg font-semibold">
              {t('tak_enroll.atak_title')}
            </h3>
            <LinkQrCode link={token.atak_uri} label={t('tak_enroll.atak_qr')} size={220} />
            <a className={buttonClass('primary', 'w-full text-center')} href={token.atak_uri}>
              {t('tak_enroll.open_atak')}
            </a>
          </section>
          <section aria-labelledby="tak-enroll-itak" className="flex flex-col gap-3">
            <h3 id="tak-enroll-itak" className="text-lg font-semibold">
              {t('tak_enroll.itak_title')}
            </h3>
            <LinkQrCode link={token.itak_qr} label={t('tak_enroll.itak_qr')} size={220} />
          </section>
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
