import type { ReactNode } from 'react';
import { Button } from './button';

/**
 * A question asked in place, before something that cannot be undone: what happens, an error
 * slot, a focused button that keeps things as they are and a danger button that goes ahead.
 */
export function InlineConfirm({
  title,
  text,
  error,
  keepLabel,
  confirmLabel,
  busy,
  onKeep,
  onConfirm,
  className = 'flex flex-col gap-2',
}: {
  title: string;
  text: ReactNode;
  error?: ReactNode;
  keepLabel: string;
  confirmLabel: string;
  busy: boolean;
  onKeep: () => void;
  onConfirm: () => void;
  className?: string;
}) {
  return (
    <div role="group" aria-label={title} className={className}>
      <p className="text-sm text-stone-800">{text}</p>
      {error}
      <div className="flex gap-2">
        <Button variant="secondary" autoFocus disabled={busy} onClick={onKeep}>
          {keepLabel}
        </Button>
        <Button variant="danger" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </div>
  );
}
