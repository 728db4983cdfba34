import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';

/** Asks before an action; the caller supplies the (translated) texts. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  message,
  confirmLabel,
  cancelLabel,
  onConfirm,
  danger = false,
  pending = false,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  onConfirm: () => void;
  danger?: boolean;
  pending?: boolean;
}) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={title}
      description={message}
      footer={
        <>
          <DialogClose asChild>
            <Button variant="secondary">{cancelLabel}</Button>
          </DialogClose>
          <Button variant={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={pending}>
            {confirmLabel}
          </Button>
        </>
      }
    />
  );
}

/**
 * The footer of a confirmation step inside a larger dialog: Go back (focused, so Enter does not
 * confirm by accident) and the dangerous action. Own keys: when the step opens, these are new
 * buttons, so a second click on the button that opened the step does not confirm it.
 */
export function ConfirmStepButtons({
  goBackLabel,
  confirmLabel,
  busy,
  onGoBack,
  onConfirm,
}: {
  goBackLabel: string;
  confirmLabel: string;
  busy: boolean;
  onGoBack: () => void;
  onConfirm: () => void;
}) {
  return (
    <>
      <Button
        key="confirm-step-go-back"
        variant="secondary"
        autoFocus
        disabled={busy}
        onClick={onGoBack}
      >
        {goBackLabel}
      </Button>
      <Button key="confirm-step-confirm" variant="danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </Button>
    </>
  );
}
