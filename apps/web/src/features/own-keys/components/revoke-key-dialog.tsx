import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KeyEntry } from '@callsign/contract';
import { Button } from '../../../components/button';
import { ConfirmStepButtons } from '../../../components/confirm-dialog';
import { Dialog } from '../../../components/dialog';
import { errorText } from '../../../lib/error-text';
import { keyName, whatStopsWorking } from '../../../lib/key-names';
import { useRevokeOwnKey } from '../api/keys';

/**
 * Asks before a member revokes one of their keys, saying what stops working. The key in use
 * (this browser's) takes a second confirmation, which says that this device is signed out and
 * how to come back; `onRevokedCurrent` then takes the member off the mTLS face.
 */
export function RevokeKeyDialog({
  keyEntry,
  onClose,
  onRevoked,
  onRevokedCurrent,
}: {
  keyEntry: KeyEntry;
  onClose: () => void;
  onRevoked: (name: string) => void;
  onRevokedCurrent: () => void;
}) {
  const { t, i18n } = useTranslation();
  const [step, setStep] = useState<'confirm' | 'confirm-current'>('confirm');
  const revoke = useRevokeOwnKey();
  const name = keyName(t, keyEntry, i18n.language);
  const close = (open: boolean) => {
    if (!open && !revoke.isPending) onClose();
  };
  const confirm = () => {
    revoke.mutate(keyEntry.serial, {
      onSuccess: () => {
        if (keyEntry.current) onRevokedCurrent();
        else onRevoked(name);
      },
    });
  };

  const failure = revoke.error !== null && (
    <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
      {t('keys.revoke.failed')} {errorText(t, revoke.error)}
    </p>
  );

  if (step === 'confirm-current') {
    return (
      <Dialog
        open
        onOpenChange={close}
        title={t('keys.revoke.current_title')}
        description={
          <div className="space-y-2">
            <p>{t('keys.revoke.current_text')}</p>
            <p className="font-semibold">{t('keys.revoke.current_next')}</p>
          </div>
        }
        footer={
          <ConfirmStepButtons
            goBackLabel={t('keys.revoke.keep')}
            confirmLabel={
              revoke.isPending ? t('keys.revoke.revoking') : t('keys.revoke.confirm_current')
            }
            busy={revoke.isPending}
            onGoBack={onClose}
            onConfirm={confirm}
          />
        }
      >
        {failure}
      </Dialog>
    );
  }

  return (
    <Dialog
      open
      onOpenChange={close}
      title={t('keys.revoke.title')}
      description={
        <div className="space-y-2">
          <p className="font-semibold break-words">{name}</p>
          <p>{whatStopsWorking(t, keyEntry)}</p>
          <p>{t('keys.revoke.final')}</p>
        </div>
      }
      footer={
        <>
          <Button variant="secondary" autoFocus disabled={revoke.isPending} onClick={onClose}>
            {t('keys.revoke.keep')}
          </Button>
          <Button
            variant="danger"
            disabled={revoke.isPending}
            onClick={() => {
              if (keyEntry.current) setStep('confirm-current');
              else confirm();
            }}
          >
            {revoke.isPending ? t('keys.revoke.revoking') : t('keys.revoke.confirm')}
          </Button>
        </>
      }
    >
      {failure}
    </Dialog>
  );
}
