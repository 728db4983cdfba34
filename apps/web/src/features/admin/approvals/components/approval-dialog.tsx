import { useReducer, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { ConfirmStepButtons } from '../../../../components/confirm-dialog';
import { Dialog } from '../../../../components/dialog';
import { TextField } from '../../../../components/text-field';
import { minutesToWait } from '../../../../lib/api-client';
import { errorText } from '../../../../lib/error-text';
import { useApproveUser, useRejectUser } from '../api/approvals';
import { approvalReducer, INITIAL_APPROVAL } from './approval-machine';

/**
 * The enrolment approval dialog: the admin types or pastes the approval code the
 * enrollee shows and approves, or rejects after a confirmation. OK closes and resets.
 */
export function ApprovalDialog({
  callsign,
  initialCode = '',
  onClose,
}: {
  callsign: string;
  initialCode?: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [state, dispatch] = useReducer(approvalReducer, INITIAL_APPROVAL);
  const [code, setCode] = useState(initialCode);
  const approve = useApproveUser();
  const reject = useRejectUser();
  const busy = state.step === 'approving' || state.step === 'rejecting';

  const finish = () => {
    dispatch({ type: 'reset' });
    onClose();
  };
  const onOpenChange = (open: boolean) => {
    if (!open && !busy) finish();
  };
  const failed = (error: unknown) => {
    const wait = minutesToWait(error);
    const message =
      wait === undefined ? errorText(t, error) : t('errors.too_many_attempts', { count: wait });
    dispatch({ type: 'failed', message });
  };

  switch (state.step) {
    case 'approved':
    case 'rejected':
      return (
        <Dialog
          open
          onOpenChange={onOpenChange}
          title={t('admin.approval.dialog_title', { callsign })}
          footer={
            <Button key="ok" autoFocus onClick={finish}>
              {t('dialogs.ok')}
            </Button>
          }
        >
          <p role="status" className="rounded-md bg-emerald-50 p-3 text-emerald-900">
            {state.step === 'approved'
              ? t('admin.approval.approved')
              : t('admin.approval.rejected')}
          </p>
        </Dialog>
      );
    case 'confirm-reject':
    case 'rejecting':
      return (
        <Dialog
          open
          onOpenChange={onOpenChange}
          title={t('admin.approval.reject_title', { callsign })}
          description={t('admin.approval.reject_text', { callsign })}
          footer={
            <ConfirmStepButtons
              goBackLabel={t('admin.approval.go_back')}
              confirmLabel={busy ? t('admin.approval.rejecting') : t('admin.approval.reject')}
              busy={busy}
              onGoBack={() => {
                dispatch({ type: 'cancel-reject' });
              }}
              onConfirm={() => {
                dispatch({ type: 'reject' });
                reject.mutate(callsign, {
                  onSuccess: () => {
                    dispatch({ type: 'succeeded' });
                  },
                  onError: failed,
                });
              }}
            />
          }
        />
      );
    case 'initial':
    case 'approving':
      return (
        <Dialog
          open
          onOpenChange={onOpenChange}
          title={t('admin.approval.dialog_title', { callsign })}
          description={t('admin.approval.dialog_text')}
          footer={
            <>
              <Button variant="secondary" disabled={busy} onClick={finish}>
                {t('dialogs.cancel')}
              </Button>
              <Button
                variant="danger"
                disabled={busy}
                onClick={() => {
                  dispatch({ type: 'ask-reject' });
                }}
              >
                {t('admin.approval.reject')}
              </Button>
              <Button
                disabled={busy || callsign === ''}
                onClick={() => {
                  dispatch({ type: 'approve' });
                  approve.mutate(
                    { callsign, code: code.trim() },
                    {
                      onSuccess: () => {
                        dispatch({ type: 'succeeded' });
                      },
                      onError: failed,
                    },
                  );
                }}
              >
                {busy ? t('admin.approval.approving') : t('admin.approval.approve')}
              </Button>
            </>
          }
        >
          <form
            className="flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault();
            }}
          >
            <p>
              <span className="font-semibold">{t('admin.approval.callsign')}:</span>{' '}
              <span className="break-all">{callsign}</span>
            </p>
            <TextField
              label={t('admin.approval.code_label')}
              code
              value={code}
              disabled={busy}
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              onChange={(event) => {
                setCode(event.target.value);
              }}
            />
          </form>
          {state.step === 'initial' && state.error !== null && (
            <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
              {state.error.kind === 'approve'
                ? t('admin.approval.approve_error', { message: state.error.message })
                : t('admin.approval.reject_error', { message: state.error.message })}
            </p>
          )}
        </Dialog>
      );
  }
}
