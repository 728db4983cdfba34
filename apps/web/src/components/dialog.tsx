import * as RadixDialog from '@radix-ui/react-dialog';
import { useRef, type ReactNode } from 'react';

/** The one dialog frame: Radix gives focus trapping, Escape, and the title/description links. */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  footer,
  wide = false,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  footer: ReactNode;
  wide?: boolean;
}) {
  // Opened from a plain button (not a Radix trigger): give focus back to it on close.
  const returnTo = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <RadixDialog.Content
          className={`fixed top-1/2 left-1/2 z-50 flex max-h-[90dvh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 overflow-y-auto rounded-lg bg-white p-5 text-stone-900 shadow-xl focus:outline-none ${wide ? 'max-w-2xl' : 'max-w-md'}`}
          {...(description === undefined ? { 'aria-describedby': undefined } : {})}
          onOpenAutoFocus={() => {
            returnTo.current =
              document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onCloseAutoFocus={(event) => {
            const target = returnTo.current;
            if (target?.isConnected === true) {
              event.preventDefault();
              target.focus();
            }
          }}
        >
          <RadixDialog.Title className="text-xl font-bold">{title}</RadixDialog.Title>
          {description !== undefined && (
            <RadixDialog.Description asChild>
              <div className="text-stone-700">{description}</div>
            </RadixDialog.Description>
          )}
          {children}
          <div className="flex flex-wrap justify-end gap-2">{footer}</div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

export const DialogClose = RadixDialog.Close;
