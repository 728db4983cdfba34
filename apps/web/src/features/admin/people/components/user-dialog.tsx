import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { ConfirmStepButtons } from '../../../../components/confirm-dialog';
import { PromoteKeysNote } from './promote-keys-note';
import { Dialog } from '../../../../components/dialog';
import { useChangeRole, useRevokePerson, type Person } from '../api/people';
import { MemberGroupsEditor } from '../../groups/components/member-groups-editor';
import { memberActionFailure } from './action-failure';
import { PresetEditor } from './preset-editor';
import { RevocationReceiptDialog } from './revocation-receipt';
import { UserKeysSection } from './user-keys-section';

type View = 'actions' | 'confirm-revoke';

/**
 * The dialog of one user: Go back, Revoke (after a warning that it cannot be undone, ending
 * with the revocation's receipt) and Promote or Demote. `onDone` gets the text to show once an
 * action succeeded; the dialog stays open with the reason when it failed (a 409: yourself or the
 * last admin).
 */
export function UserDialog({
  person,
  onClose,
  onDone,
  tools,
}: {
  person: Person;
  onClose: () => void;
  onDone: (text: string) => void;
  /** More actions for this member, from outside the admin feature (the enrollment QR). */
  tools?: ReactNode;
}) {
  const { t } = useTranslation();
  const [view, setView] = useState<View>('actions');
  const changeRole = useChangeRole();
  const revoke = useRevokePerson();
  const pending = changeRole.isPending || revoke.isPending;
  const { callsign } = person;
  const change = person.isAdmin ? 'demote' : 'promote';

  const failure = (() => {
    const error = revoke.error ?? changeRole.error;
    if (error === null) return null;
    return memberActionFailure(t, revoke.error !== null ? 'revoke' : change, error);
  })();

  const alert = failure !== null && (
    <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
      {failure}
    </p>
  );

  const close = (open: boolean) => {
    if (!open && !pending) onClose();
  };

  if (revoke.data !== undefined) {
    return (
      <RevocationReceiptDialog
        callsign={callsign}
        receipt={revoke.data.receipt}
        onClose={() => {
          onDone(t('admin.users.revoked', { callsign }));
        }}
      />
    );
  }

  if (view === 'confirm-revoke') {
    return (
      <Dialog
        open
        onOpenChange={close}
        title={t('admin.users.revoke_title', { callsign })}
        description={t('admin.users.revoke_warning', { callsign })}
        footer={
          <ConfirmStepButtons
            goBackLabel={t('admin.users.go_back')}
            confirmLabel={revoke.isPending ? t('admin.users.revoking') : t('admin.users.revoke')}
            busy={pending}
            onGoBack={() => {
              revoke.reset();
              setView('actions');
            }}
            onConfirm={() => {
              revoke.mutate(callsign);
            }}
          />
        }
      >
        {alert}
      </Dialog>
    );
  }

  return (
    <Dialog
      open
      onOpenChange={close}
      title={callsign}
      description={person.isAdmin ? t('admin.users.is_admin') : t('admin.users.is_member')}
      footer={
        <>
          <Button variant="secondary" disabled={pending} onClick={onClose}>
            {t('admin.users.go_back')}
          </Button>
          <Button
            variant="danger"
            disabled={pending}
            onClick={() => {
              changeRole.reset();
              setView('confirm-revoke');
            }}
          >
            {t('admin.users.revoke')}
          </Button>
          <Button
            disabled={pending}
            onClick={() => {
              changeRole.mutate(
                { change, callsign },
                {
                  onSuccess: () => {
                    onDone(t(`admin.users.${change}d`, { callsign }));
                  },
                },
              );
            }}
          >
            {changeRole.isPending ? t('admin.users.saving') : t(`admin.users.${change}`)}
          </Button>
        </>
      }
    >
      <p className="text-sm text-stone-600">{t('admin.users.revoke_hint')}</p>
      {tools}
      {alert}
      {!person.isAdmin && <PromoteKeysNote callsign={callsign} />}
      <PresetEditor callsign={callsign} />
      <MemberGroupsEditor callsign={callsign} />
      <UserKeysSection callsign={callsign} />
    </Dialog>
  );
}
