import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { Dialog } from '../../../components/dialog';
import { errorText } from '../../../lib/error-text';
import { useEnrollmentToken } from '../api/enrollment-token';
import { EnrollmentCodes, TrustQrCodes } from './enrollment-codes';

/**
 * "Enrollment QR" for one member (an admin's enrollment station): a code made for that member,
 * shown until the dialog closes, as a laptop shows it (QR codes, no "Open in ATAK"); where phones
 * need it, the trust package's QR codes first. Making it voids the member's own code.
 */
export function EnrollmentQrButton({ callsign }: { callsign: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const token = useEnrollmentToken(callsign);

  return (
    <>
      <Button
        variant="secondary"
        onClick={() => {
          setOpen(true);
          token.make();
        }}
      >
        {t('tak_enroll.admin_button')}
      </Button>
      <Dialog
        open={open}
        wide
        onOpenChange={(next) => {
          if (!next) {
            setOpen(false);
            token.clear();
          }
        }}
        title={t('tak_enroll.admin_title', { callsign })}
        description={t('tak_enroll.admin_intro')}
        footer={
          <Button
            variant="secondary"
            onClick={() => {
              setOpen(false);
              token.clear();
            }}
          >
            {t('admin.users.go_back')}
          </Button>
        }
      >
        {token.code?.trusted_by_phones === false && (
          <div
            className="flex flex-col gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3"
            data-testid="tak-enroll-trust"
          >
            <p className="font-semibold">{t('tak_enroll.trust_title')}</p>
            <p>{t('tak_enroll.trust_why')}</p>
            <TrustQrCodes />
          </div>
        )}
        {token.code !== undefined && (
          <EnrollmentCodes
            token={token.code}
            device="screen"
            busy={token.isPending}
            onNewCode={token.make}
          />
        )}
        {token.code === undefined && token.isPending && <p>{t('tak_enroll.making')}</p>}
        {token.error !== null && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {t('tak_enroll.failed')} {errorText(t, token.error)}
          </p>
        )}
      </Dialog>
    </>
  );
}
