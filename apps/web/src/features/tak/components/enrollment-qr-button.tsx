import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../components/button';
import { Dialog } from '../../../components/dialog';
import { errorMessage } from '../../../lib/api-client';
import { useEnrollmentToken } from '../api/enrollment-token';
import { EnrollmentCodes } from './enrollment-codes';

/**
 * "Enrollment QR" for one member (an admin's enrollment station): a code made for that member,
 * shown until the dialog closes. Making it voids the member's own code.
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
            {t('tak_enroll.failed')} {errorMessage(token.error)}
          </p>
        )}
      </Dialog>
    </>
  );
}
