import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { Card } from '../../../components/card';
import { errorMessage } from '../../../lib/api-client';
import { useEnrollmentToken, useTrustPackageDownload } from '../api/enrollment-token';
import { EnrollmentCodes } from './enrollment-codes';

/**
 * "Connect ATAK or iTAK" (issue 16): a one-time code the TAK app enrolls with, making its own key
 * on the phone, so that no key file is ever downloaded. Where phones do not trust the enrollment
 * face's certificate by themselves, the trust package comes first.
 */
export function ConnectTakCard() {
  const { t } = useTranslation();
  const token = useEnrollmentToken();
  const trust = useTrustPackageDownload();
  const issued = token.code;
  const needsTrust = issued !== undefined && !issued.trusted_by_phones;

  return (
    <Card title={t('tak_enroll.title')}>
      <p className="mt-2 text-stone-700">{t('tak_enroll.intro')}</p>
      {issued === undefined ? (
        <Button className="mt-4 w-full sm:w-auto" disabled={token.isPending} onClick={token.make}>
          {token.isPending ? t('tak_enroll.making') : t('tak_enroll.show_code')}
        </Button>
      ) : (
        <EnrollmentCodes token={issued} busy={token.isPending} onNewCode={token.make} />
      )}
      {token.error !== null && (
        <p role="alert" className="mt-3 rounded-md bg-red-50 p-3 text-red-800">
          {t('tak_enroll.failed')} {errorMessage(token.error)}
        </p>
      )}
      <h3 className="mt-5 text-lg font-semibold">{t('tak_enroll.steps_title')}</h3>
      {needsTrust && (
        <div className="mt-2 flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3">
          <p>{t('tak_enroll.trust_first')}</p>
          <Button
            variant="secondary"
            disabled={trust.isPending}
            onClick={() => {
              trust.mutate();
            }}
          >
            {t('tak_enroll.trust_download')}
          </Button>
          {trust.error !== null && (
            <p role="alert" className="text-red-800">
              {t('tak_enroll.failed')} {errorMessage(trust.error)}
            </p>
          )}
        </div>
      )}
      <h4 className="mt-3 font-semibold">{t('tak_enroll.atak_title')}</h4>
      <ol className="mt-1 list-decimal pl-6 text-stone-700">
        <li>{t('tak_enroll.atak_step_install')}</li>
        {needsTrust && <li>{t('tak_enroll.atak_step_trust')}</li>}
        <li>{needsTrust ? t('tak_enroll.atak_step_login') : t('tak_enroll.atak_step_scan')}</li>
      </ol>
      <h4 className="mt-3 font-semibold">{t('tak_enroll.itak_title')}</h4>
      <ol className="mt-1 list-decimal pl-6 text-stone-700">
        <li>{t('tak_enroll.itak_step_install')}</li>
        {needsTrust && <li>{t('tak_enroll.itak_step_trust')}</li>}
        <li>{t('tak_enroll.itak_step_scan')}</li>
      </ol>
      <p className="mt-3 text-sm text-stone-600">{t('tak_enroll.fallback')}</p>
    </Card>
  );
}
