import * as Collapsible from '@radix-ui/react-collapsible';
import type { ReactNode } from 'react';

/**
 * A card whose heading opens and closes its content (Radix collapsible: a button with
 * aria-expanded inside the heading, so screen readers announce both). Open state is the card's own
 * unless `open`/`onOpenChange` control it.
 */
export function CollapsibleCard({
  title,
  defaultOpen = false,
  open,
  onOpenChange,
  className = '',
  contentClassName = 'px-4 pb-4',
  children,
}: {
  title: ReactNode;
  defaultOpen?: boolean;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  className?: string;
  contentClassName?: string;
  children: ReactNode;
}) {
  return (
    <Collapsible.Root
      defaultOpen={defaultOpen}
      {...(open === undefined ? {} : { open })}
      {...(onOpenChange === undefined ? {} : { onOpenChange })}
      className={`rounded-lg border border-stone-200 bg-white shadow-sm ${className}`.trim()}
    >
      <h2>
        <Collapsible.Trigger className="group flex min-h-12 w-full items-center justify-between gap-3 rounded-lg px-4 py-3 text-left text-lg font-semibold focus-visible:outline-3 focus-visible:outline-amber-500">
          <span>{title}</span>
          <span
            aria-hidden="true"
            className="shrink-0 text-emerald-900 transition-transform group-data-[state=open]:rotate-180"
          >
            ▾
          </span>
        </Collapsible.Trigger>
      </h2>
      <Collapsible.Content className={contentClassName}>{children}</Collapsible.Content>
    </Collapsible.Root>
  );
}
