import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { CopyLinkButton, LinkQrCode } from '../../../../components/share-link';
import { errorMessage } from '../../../../lib/api-client';
import { dateLocale } from '../../../../lib/key-names';
import { useCreateRenewalCode } from '../api/keys';
import { inviteLink } from '../../invites/components/invite-qr-page';

/**
 * A renewal code for a member: made on request, shown once as a link and a QR
 * code like an invite (the login page with the code), single use for 72 hours.
 */
export function RenewalCodeShare({ callsign }: { callsign: string }) {
  const { t, i18n } = useTranslation();
  const create = useCreateRenewalCode();
  const made = create.data;
  return (
    <div className="mt-4 flex flex-col gap-2">
      <h4 className="font-bold">{t('admin.keys.renewal_title')}</h4>
      <p className="text-sm text-stone-700">{t('admin.keys.renewal_text', { callsign })}</p>
      {made === undefined ? (
        <Button
          variant="secondary"
          disabled={create.isPending}
          onClick={() => {
            create.mutate(callsign);
          }}
        >
          {create.isPending ? t('admin.keys.renewal_making') : t('admin.keys.renewal_make')}
        </Button>
      ) : (
        <>
          <p className="font-mono text-2xl font-bold tracking-widest">{made.renewal_code}</p>
          <LinkQrCode
            link={inviteLink(made.renewal_code)}
            size={200}
            label={t('admin.keys.renewal_qr', { callsign })}
          />
          <p className="rounded-md bg-stone-100 p-3 font-mono text-sm break-all">
            {inviteLink(made.renewal_code)}
          </p>
          <CopyLinkButton
            link={inviteLink(made.renewal_code)}
            copyLabel={t('admin.keys.renewal_copy')}
            copiedLabel={t('admin.code.copied')}
          />
          <p className="text-sm text-stone-700">
            {t('admin.keys.renewal_valid', {
              date: new Intl.DateTimeFormat(dateLocale(i18n.language), {
                dateStyle: 'long',
                timeStyle: 'short',
              }).format(new Date(made.expires_at)),
            })}
          </p>
        </>
      )}
      {create.error !== null && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {t('admin.keys.renewal_failed')} {errorMessage(create.error)}
        </p>
      )}
    </div>
  );
}
