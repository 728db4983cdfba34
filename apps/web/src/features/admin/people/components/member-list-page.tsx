import { CollapsibleCard } from '../../../../components/collapsible-card';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { peopleQueryOptions, type Person } from '../api/people';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { Outcome, QueryState } from '../../shared/components/query-state';
import { UserDialog } from './user-dialog';

function UserGroup({
  title,
  people,
  defaultOpen,
  empty,
  onPick,
}: {
  title: string;
  people: Person[];
  defaultOpen: boolean;
  empty: string;
  onPick: (person: Person) => void;
}) {
  return (
    <CollapsibleCard
      defaultOpen={defaultOpen}
      contentClassName="border-t border-stone-200"
      title={
        <>
          {title} <span className="font-normal text-stone-600">({people.length})</span>
        </>
      }
    >
      {people.length === 0 ? (
        <p className="px-4 py-3 text-stone-700">{empty}</p>
      ) : (
        <ul className="divide-y divide-stone-200">
          {people.map((person) => (
            <li key={person.callsign}>
              <button
                type="button"
                onClick={() => {
                  onPick(person);
                }}
                className="flex min-h-11 w-full items-center justify-between gap-2 px-4 py-2 text-left break-all hover:bg-emerald-50 focus-visible:outline-3 focus-visible:outline-amber-500"
              >
                <span className="font-medium">{person.callsign}</span>
                <span aria-hidden="true" className="text-stone-500">
                  ›
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </CollapsibleCard>
  );
}

/** /app/admin/user-management: admins and members; a user's dialog changes or revokes them. */
/**
 * `memberTools`: what the app adds to the dialog of one user (the TAK enrollment QR), given by
 * the route so that this feature does not import another.
 */
export function MemberListPage({
  memberTools,
}: {
  memberTools?: (callsign: string) => ReactNode;
} = {}) {
  const { t } = useTranslation();
  const people = useQuery(peopleQueryOptions());
  const [picked, setPicked] = useState<Person | null>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const admins = people.data?.filter((person) => person.isAdmin) ?? [];
  const members = people.data?.filter((person) => !person.isAdmin) ?? [];

  const pick = (person: Person) => {
    setOutcome(null);
    setPicked(person);
  };

  return (
    <AdminPage title={t('admin.users.title')} back={paths.admin.manageUsers.path}>
      <p className="text-stone-700">{t('admin.users.intro')}</p>
      <Outcome outcome={outcome} />
      <QueryState isPending={people.isPending} error={people.error} />
      {people.data !== undefined && (
        <>
          <UserGroup
            title={t('admin.users.admins')}
            people={admins}
            defaultOpen={false}
            empty={t('admin.users.nothing_to_list')}
            onPick={pick}
          />
          <UserGroup
            title={t('admin.users.members')}
            people={members}
            defaultOpen
            empty={t('admin.users.nothing_to_list')}
            onPick={pick}
          />
        </>
      )}
      {picked !== null && (
        <UserDialog
          key={picked.callsign}
          person={picked}
          tools={memberTools?.(picked.callsign)}
          onClose={() => {
            setPicked(null);
          }}
          onDone={(text) => {
            setPicked(null);
            setOutcome({ ok: true, text });
          }}
        />
      )}
    </AdminPage>
  );
}
