import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { InlineConfirm } from '../../../../components/inline-confirm';
import { CopyLinkButton, LinkQrCode } from '../../../../components/share-link';
import { errorText } from '../../../../lib/error-text';
import { formatDateTime } from '../../../../lib/format';
import { useCreateRenewalCode } from '../api/keys';
import { inviteLink } from '../../invites/components/invite-qr-page';

/**
 * A renewal code for a member: made on request, shown once as a link and a QR
 * code like an invite (the login page with the code), single use for 72 hours. While the member
 * still holds working keys (`liveKeys`), it asks first: the code revokes them (a lost phone).
 */
export function RenewalCodeShare({ callsign, liveKeys }: { callsign: string; liveKeys: number }) {
  const { t, i18n } = useTranslation();
  const create = useCreateRenewalCode();
  const [confirming, setConfirming] = useState(false);
  const made = create.data;
  const makeButton = (
    <Button
      variant="secondary"
      disabled={create.isPending}
      onClick={() => {
        if (liveKeys > 0) setConfirming(true);
        else create.mutate({ callsign, revokeKeys: false });
      }}
    >
      {create.isPending ? t('admin.keys.renewal_making') : t('admin.keys.renewal_make')}
    </Button>
  );
  return (
    <div className="mt-4 flex flex-col gap-2">
      <h4 className="font-bold">{t('admin.keys.renewal_title')}</h4>
      <p className="text-sm text-stone-700">{t('admin.keys.renewal_text', { callsign })}</p>
      {made === undefined ? (
        confirming && liveKeys > 0 ? (
          <InlineConfirm
            title={t('admin.keys.renewal_revoke_title')}
            text={t('admin.keys.renewal_revoke_text', { count: liveKeys, callsign })}
            keepLabel={t('admin.keys.renewal_revoke_keep')}
            confirmLabel={
              create.isPending
                ? t('admin.keys.renewal_making')
                : t('admin.keys.renewal_revoke_confirm', { count: liveKeys })
            }
            busy={create.isPending}
            onKeep={() => {
              setConfirming(false);
            }}
            onConfirm={() => {
              create.mutate(
                { callsign, revokeKeys: true },
                {
                  onSettled: () => {
                    setConfirming(false);
                  },
                },
              );
            }}
          />
        ) : (
          makeButton
        )
      ) : (
        <>
          {made.keys_revoked > 0 && (
            <p className="text-sm text-stone-800">
              {t('admin.keys.renewal_revoked', { count: made.keys_revoked })}
            </p>
          )}
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
              date: formatDateTime(made.expires_at, i18n.language),
            })}
          </p>
        </>
      )}
      {create.error !== null && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {t('admin.keys.renewal_failed')} {errorText(t, create.error)}
        </p>
      )}
    </div>
  );
}
