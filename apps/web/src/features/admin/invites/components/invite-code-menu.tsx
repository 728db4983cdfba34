import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { InviteCode } from '../api/invites';

export type CodeAction = 'show' | 'deactivate' | 'activate' | 'delete';

const ITEM =
  'flex min-h-11 cursor-pointer items-center rounded px-3 py-2 outline-none select-none ' +
  'data-[highlighted]:bg-emerald-50 data-[highlighted]:text-emerald-950';

/** The per-code menu of the code list: show QR code, deactivate or activate, delete. */
export function InviteCodeMenu({
  invite,
  onPick,
}: {
  invite: InviteCode;
  onPick: (action: CodeAction) => void;
}) {
  const { t } = useTranslation();
  const trigger = useRef<HTMLButtonElement>(null);
  const picked = useRef<CodeAction | null>(null);
  return (
    // Not modal: the confirmation dialog it opens takes over focus and the page.
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger
        ref={trigger}
        aria-label={t('admin.codes.menu', { code: invite.code })}
        className="inline-flex min-h-11 min-w-11 shrink-0 items-center justify-center rounded-md border border-stone-300 bg-white text-xl leading-none text-stone-800 hover:bg-stone-100 focus-visible:outline-3 focus-visible:outline-amber-500"
      >
        <span aria-hidden="true">⋮</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={4}
          // The dialog opens once the menu has given focus back to its button, so that the
          // dialog neither closes at once (focus moving outside it) nor loses focus on close.
          onCloseAutoFocus={(event) => {
            const action = picked.current;
            if (action === null) return;
            picked.current = null;
            event.preventDefault();
            trigger.current?.focus();
            onPick(action);
          }}
          className="z-30 min-w-48 rounded-md border border-stone-200 bg-white p-1 text-stone-900 shadow-lg"
        >
          <DropdownMenu.Item
            className={ITEM}
            onSelect={() => {
              picked.current = 'show';
            }}
          >
            {t('admin.codes.show_qr')}
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className={ITEM}
            onSelect={() => {
              picked.current = invite.active ? 'deactivate' : 'activate';
            }}
          >
            {invite.active ? t('admin.codes.deactivate') : t('admin.codes.activate')}
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className={`${ITEM} text-red-800`}
            onSelect={() => {
              picked.current = 'delete';
            }}
          >
            {t('admin.codes.delete')}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
