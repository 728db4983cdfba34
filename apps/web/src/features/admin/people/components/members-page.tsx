import { useInfiniteQuery } from '@tanstack/react-query';
import { MEMBER_SORTS, type MemberSort } from '@callsign/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Button } from '../../../../components/button';
import { SelectField } from '../../../../components/select-field';
import { TextField } from '../../../../components/text-field';
import { paths } from '../../../../lib/paths';
import { usePaused } from '../../../../lib/use-paused';
import { membersTableQueryOptions, type MemberRow } from '../api/members';
import { AdminPage } from '../../shared/components/admin-page';
import { QueryState } from '../../shared/components/query-state';
import { Groups, KeyExpiry, LastSeen, MemberState } from './member-facts';

/** Typing pauses this long before the table asks again. */
const SEARCH_DELAY_MS = 200;

function CallsignLink({ member }: { member: MemberRow }) {
  const { t } = useTranslation();
  return (
    <span className="flex flex-wrap items-center gap-x-2">
      <Link
        to={paths.admin.member.href(member.callsign)}
        className="font-semibold break-all text-emerald-900 underline underline-offset-2 hover:text-emerald-700 focus-visible:outline-3 focus-visible:outline-amber-500"
      >
        {member.callsign}
      </Link>
      {member.admin && (
        <span className="rounded bg-stone-200 px-1.5 text-sm text-stone-800">
          {t('admin.members.admin_badge')}
        </span>
      )}
    </span>
  );
}

/** A laptop's view: one row a member. */
function MembersTable({ members }: { members: MemberRow[] }) {
  const { t } = useTranslation();
  const head = 'px-3 py-2 text-left font-semibold';
  const cell = 'px-3 py-2 align-top';
  return (
    <table className="hidden w-full border-collapse text-sm md:table">
      <caption className="sr-only">{t('admin.members.title')}</caption>
      <thead className="border-b-2 border-stone-300">
        <tr>
          <th scope="col" className={head}>
            {t('admin.members.callsign')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.role')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.team')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.groups')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.state')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.key_expires')}
          </th>
          <th scope="col" className={head}>
            {t('admin.members.last_seen')}
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-stone-200">
        {members.map((member) => (
          <tr key={member.callsign} className="hover:bg-emerald-50">
            <th scope="row" className={`${cell} text-left font-normal`}>
              <CallsignLink member={member} />
            </th>
            <td className={cell}>{member.role}</td>
            <td className={cell}>{member.team}</td>
            <td className={cell}>
              <Groups groups={member.groups} />
            </td>
            <td className={cell}>
              <MemberState state={member.state} />
            </td>
            <td className={cell}>
              <KeyExpiry at={member.key_expires_at} />
            </td>
            <td className={cell}>
              <LastSeen at={member.last_seen_tak_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A phone's view: one card a member, the facts under the callsign. */
function MemberCards({ members }: { members: MemberRow[] }) {
  const { t } = useTranslation();
  const fact = (label: string, value: React.ReactNode) => (
    <div className="flex flex-wrap gap-x-1">
      <dt className="text-stone-700">{label}:</dt>
      <dd>{value}</dd>
    </div>
  );
  return (
    <ul className="flex flex-col gap-2 md:hidden">
      {members.map((member) => (
        <li key={member.callsign} className="rounded-lg border border-stone-300 bg-white p-3">
          <CallsignLink member={member} />
          <dl className="mt-1 text-sm">
            {fact(t('admin.members.role_team'), `${member.role}, ${member.team}`)}
            {fact(t('admin.members.state'), <MemberState state={member.state} />)}
            {fact(t('admin.members.key_expires'), <KeyExpiry at={member.key_expires_at} />)}
            {fact(t('admin.members.last_seen'), <LastSeen at={member.last_seen_tak_at} />)}
            {member.groups.length > 0 &&
              fact(t('admin.members.groups'), <Groups groups={member.groups} />)}
          </dl>
        </li>
      ))}
    </ul>
  );
}

/**
 * /app/admin/people: every member, searched as the admin types (callsign, team or role),
 * sorted and paged ("Show more"); each callsign leads to the member's own page.
 */
export function MembersPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<MemberSort>('callsign');
  const q = usePaused(search.trim(), SEARCH_DELAY_MS);
  const table = useInfiniteQuery(membersTableQueryOptions({ q, sort }));
  const members = table.data?.pages.flatMap((page) => page.members) ?? [];
  const searching = search.trim() !== q || (table.isFetching && !table.isFetchingNextPage);

  return (
    <AdminPage title={t('admin.members.title')} back={paths.admin.home.path} wide>
      <p className="text-stone-700">{t('admin.members.intro')}</p>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <TextField
          className="sm:flex-1"
          type="search"
          label={t('admin.members.search')}
          hint={t('admin.members.search_hint')}
          value={search}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => {
            setSearch(event.target.value);
          }}
        />
        <SelectField
          className="sm:w-64"
          label={t('admin.members.sort')}
          value={sort}
          options={MEMBER_SORTS.map((value) => ({
            value,
            label: t(`admin.members.sort_${value.replace('-', 'desc_')}`),
          }))}
          onChange={(event) => {
            setSort(event.target.value as MemberSort);
          }}
        />
      </div>
      <QueryState isPending={table.isPending} error={table.error} />
      {table.data !== undefined && (
        <>
          <p role="status" aria-live="polite" className="text-stone-700">
            {searching
              ? t('admin.members.searching')
              : members.length === 0
                ? q === ''
                  ? t('admin.users.nothing_to_list')
                  : t('admin.members.no_match', { q })
                : table.hasNextPage
                  ? t('admin.members.shown_more', { count: members.length })
                  : t('admin.members.shown', { count: members.length })}
          </p>
          <MembersTable members={members} />
          <MemberCards members={members} />
          {table.hasNextPage && (
            <Button
              variant="secondary"
              className="self-start"
              disabled={table.isFetchingNextPage}
              onClick={() => {
                void table.fetchNextPage();
              }}
            >
              {table.isFetchingNextPage ? t('loading') : t('admin.members.show_more')}
            </Button>
          )}
        </>
      )}
    </AdminPage>
  );
}
