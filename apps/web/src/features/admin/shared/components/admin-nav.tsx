import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { paths } from '../../../../lib/paths';
import { waitingUsersQueryOptions } from '../../approvals/api/approvals';

interface NavItem {
  to: string;
  /** Key under `admin.nav`. */
  label: 'members' | 'approvals' | 'invites' | 'bulk' | 'groups' | 'audit' | 'system';
  /** The pages this item is current on (each with the pages below it). */
  current: readonly string[];
}

const ITEMS: readonly NavItem[] = [
  {
    to: paths.admin.people.path,
    label: 'members',
    current: [paths.admin.people.path, paths.admin.expiringKeys.path],
  },
  { to: paths.admin.approval.path, label: 'approvals', current: [paths.admin.approval.path] },
  { to: paths.admin.codeList.path, label: 'invites', current: [paths.admin.codeList.path] },
  { to: paths.admin.bulk.path, label: 'bulk', current: [paths.admin.bulk.path] },
  { to: paths.admin.groups.path, label: 'groups', current: [paths.admin.groups.path] },
  { to: paths.admin.audit.path, label: 'audit', current: [paths.admin.audit.path] },
  { to: paths.admin.system.path, label: 'system', current: [paths.admin.system.path] },
];

/** How often the pending count is asked again while an admin page is open. */
const PENDING_REFRESH_MS = 30_000;

function isCurrent(item: NavItem, pathname: string): boolean {
  // The most specific item wins: /user-management/approval is Approvals, not Members.
  const matches = (path: string) => pathname === path || pathname.startsWith(`${path}/`);
  if (!item.current.some(matches)) return false;
  const longest = Math.max(...item.current.filter(matches).map((path) => path.length));
  return !ITEMS.some(
    (other) =>
      other !== item && other.current.some((path) => matches(path) && path.length > longest),
  );
}

function PendingBadge({ count }: { count: number }) {
  const { t } = useTranslation();
  if (count === 0) return null;
  return (
    <>
      <span
        aria-hidden="true"
        className="ml-1.5 inline-flex min-w-6 items-center justify-center rounded-full bg-amber-400 px-1.5 text-sm font-bold text-stone-900"
      >
        {count}
      </span>
      <span className="sr-only">{`, ${t('admin.nav.pending', { count })}`}</span>
    </>
  );
}

/**
 * The admin area's navigation on every admin page: a row of links on a laptop, a compact menu
 * on a phone. Approvals carries the number of people waiting.
 */
export function AdminNav() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const waiting = useQuery({ ...waitingUsersQueryOptions(), refetchInterval: PENDING_REFRESH_MS });
  const pending = waiting.data?.length ?? 0;
  const current = ITEMS.find((item) => isCurrent(item, pathname));
  const [open, setOpen] = useState(false);
  const listId = useId();

  const link = (item: NavItem) => {
    const here = item === current;
    return (
      <Link
        to={item.to}
        aria-current={here ? 'page' : undefined}
        onClick={() => {
          setOpen(false);
        }}
        className={`inline-flex min-h-11 w-full items-center rounded-md px-3 font-medium focus-visible:outline-3 focus-visible:outline-amber-500 sm:w-auto ${here ? 'bg-emerald-800 text-white' : 'text-emerald-950 hover:bg-emerald-50'}`}
      >
        {t(`admin.nav.${item.label}`)}
        {item.label === 'approvals' && <PendingBadge count={pending} />}
      </Link>
    );
  };

  return (
    <nav aria-label={t('admin.nav.label')} className="border-b border-stone-200 bg-white">
      <div className="mx-auto max-w-3xl px-4 py-1">
        {/* On a phone the links fold into a menu behind this button. */}
        <button
          type="button"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => {
            setOpen(!open);
          }}
          className="flex min-h-11 w-full items-center justify-between gap-2 rounded-md px-2 text-left font-medium focus-visible:outline-3 focus-visible:outline-amber-500 sm:hidden"
        >
          <span>
            {t('admin.nav.menu')}
            {current !== undefined && (
              <span className="font-normal text-stone-700">
                {': '}
                {t(`admin.nav.${current.label}`)}
              </span>
            )}
            <PendingBadge count={pending} />
          </span>
          <span aria-hidden="true" className={open ? 'rotate-180' : ''}>
            ▾
          </span>
        </button>
        <ul
          id={listId}
          className={`${open ? 'flex' : 'hidden'} flex-col gap-1 pb-2 sm:flex sm:flex-row sm:flex-wrap sm:pb-0`}
        >
          {ITEMS.map((item) => (
            <li key={item.label}>{link(item)}</li>
          ))}
        </ul>
      </div>
    </nav>
  );
}
