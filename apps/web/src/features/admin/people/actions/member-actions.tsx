import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Button } from '../../../../components/button';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { paths } from '../../../../lib/paths';
import { Outcome } from '../../shared/components/query-state';
import { RevocationReceiptDialog } from '../components/revocation-receipt';
import { PromoteKeysNote } from '../components/promote-keys-note';
import { demote, promote, refusalText, revoke, type ActionTarget } from './definitions';
import { useRevokeMember, useRoleChange } from './use-member-actions';

/**
 * The member page's actions: promote or demote, and revoke, each asked about first with its
 * side effects said; an action that is off shows why (on yourself).
 */
export function MemberActions({ target }: { target: ActionTarget }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const refusalId = useId();
  // Which question: kept while the dialog closes, so that its text does not change under it.
  const [asking, setAsking] = useState<'change' | 'revoke'>('change');
  const [open, setOpen] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const roleChange = useRoleChange();
  const revoking = useRevokeMember();
  const pending = roleChange.isPending || revoking.isPending;
  const { callsign } = target.member;
  const change = promote.offered(target) ? promote : demote;

  // The receipt outlives the member's row, which reads revoked once the lists are asked again.
  if (revoking.data !== undefined) {
    return (
      <RevocationReceiptDialog
        callsign={callsign}
        receipt={revoking.data.receipt}
        onClose={() => {
          void navigate(paths.admin.people.path);
        }}
      />
    );
  }
  if (!revoke.offered(target)) {
    return <p className="text-stone-700">{t(`admin.member.no_actions_${target.member.state}`)}</p>;
  }

  const refusals = [change.refusal(target), revoke.refusal(target)];
  const shownRefusal = refusals.find((refusal) => refusal !== null) ?? null;
  const button = (refused: boolean) => ({
    disabled: refused || pending,
    'aria-describedby': refused ? refusalId : undefined,
  });
  const ask = (which: 'change' | 'revoke') => {
    setOutcome(null);
    setAsking(which);
    setOpen(true);
  };
  const failed = (text: string) => {
    setOpen(false);
    setOutcome({ ok: false, text });
  };
  const question =
    asking === 'revoke' ? revoke.question(t, callsign) : change.question(t, callsign);
  const closeQuestion = (next: boolean) => {
    if (!next && !pending) setOpen(false);
  };

  return (
    <section aria-labelledby="member-actions" className="flex flex-col gap-3">
      <h2 id="member-actions" className="text-xl font-bold">
        {t('admin.member.actions')}
      </h2>
      {shownRefusal !== null && (
        <p id={refusalId} className="rounded-md bg-amber-50 p-3 text-amber-950">
          {refusalText(t, shownRefusal)}
        </p>
      )}
      <Outcome outcome={outcome} />
      <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        <Button
          variant="secondary"
          {...button(refusals[0] !== null)}
          onClick={() => {
            ask('change');
          }}
        >
          {change.label(t)}
        </Button>
        <Button
          variant="danger"
          {...button(refusals[1] !== null)}
          onClick={() => {
            ask('revoke');
          }}
        >
          {revoke.label(t)}
        </Button>
      </div>
      <ConfirmDialog
        open={open}
        onOpenChange={closeQuestion}
        title={question.title}
        message={
          <>
            {question.text}
            {asking === 'change' && change === promote && <PromoteKeysNote callsign={callsign} />}
          </>
        }
        cancelLabel={t('admin.users.go_back')}
        confirmLabel={
          roleChange.isPending
            ? t('admin.users.saving')
            : revoking.isPending
              ? t('admin.users.revoking')
              : question.confirm
        }
        danger={asking === 'revoke' || change === demote}
        pending={pending}
        onConfirm={() => {
          if (asking === 'revoke') {
            revoking.mutate(callsign, {
              onError: (error) => {
                failed(revoke.failure(t, error));
              },
            });
            return;
          }
          roleChange.mutate(
            { change: change === promote ? 'promote' : 'demote', callsign },
            {
              onSuccess: () => {
                setOpen(false);
                setOutcome({ ok: true, text: change.done(t, callsign) });
              },
              onError: (error) => {
                failed(change.failure(t, error));
              },
            },
          );
        }}
      />
    </section>
  );
}
