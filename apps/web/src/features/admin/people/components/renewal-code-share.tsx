import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { InlineConfirm } from '../../../../components/inline-confirm';
import { CopyLinkButton, LinkQrCode } from '../../../../components/share-link';
import { formatDateTime } from '../../../../lib/format';
import { refusalText, renewalCode, type ActionTarget } from '../actions/definitions';
import { useRenewalCode } from '../actions/use-member-actions';
import { inviteLink } from '../../invites/components/invite-qr-page';

/**
 * A renewal code for a member: made on request, shown once as a link and a QR
 * code like an invite (the login page with the code), single use for 72 hours. While the member
 * still holds working keys (`liveKeys`), it asks first: the code revokes them (a lost phone).
 * For another admin (`target` known) it is not offered: the reason instead.
 */
export function RenewalCodeShare({
  callsign,
  liveKeys,
  target,
}: {
  callsign: string;
  liveKeys: number;
  target?: ActionTarget;
}) {
  const { t, i18n } = useTranslation();
  const create = useRenewalCode();
  const [confirming, setConfirming] = useState(false);
  const made = create.data;
  const refusal = target === undefined ? null : renewalCode.refusal(target);
  const question = renewalCode.question(t, callsign, liveKeys);
  const makeButton =
    refusal !== null ? (
      <p className="text-sm text-stone-700">{refusalText(t, refusal)}</p>
    ) : (
      <Button
        variant="secondary"
        disabled={create.isPending}
        onClick={() => {
          if (question !== null) setConfirming(true);
          else create.mutate({ callsign, liveKeys });
        }}
      >
        {create.isPending ? t('admin.keys.renewal_making') : renewalCode.label(t)}
      </Button>
    );
  return (
    <div className="mt-4 flex flex-col gap-2">
      <h4 className="font-bold">{t('admin.keys.renewal_title')}</h4>
      <p className="text-sm text-stone-700">{t('admin.keys.renewal_text', { callsign })}</p>
      {made === undefined ? (
        confirming && question !== null ? (
          <InlineConfirm
            title={question.title}
            text={question.text}
            keepLabel={t('admin.keys.renewal_revoke_keep')}
            confirmLabel={create.isPending ? t('admin.keys.renewal_making') : question.confirm}
            busy={create.isPending}
            onKeep={() => {
              setConfirming(false);
            }}
            onConfirm={() => {
              create.mutate(
                { callsign, liveKeys },
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
          {renewalCode.failure(t, create.error)}
        </p>
      )}
    </div>
  );
}
