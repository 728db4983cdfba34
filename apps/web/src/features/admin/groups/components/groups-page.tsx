import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GroupsResponse } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { InlineConfirm } from '../../../../components/inline-confirm';
import { TextField } from '../../../../components/text-field';
import { errorText } from '../../../../lib/error-text';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { Outcome, QueryState } from '../../shared/components/query-state';
import { groupsQueryOptions, useCreateGroup, useDeleteGroup } from '../api/groups';

type Group = GroupsResponse['groups'][number];

/** The form that makes a group; the server checks the name (422) and that it is new (409). */
function CreateGroupForm() {
  const { t } = useTranslation(ONBOARDING_NS);
  const create = useCreateGroup();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return (
    <form
      className="flex flex-col gap-3 rounded-lg border border-stone-200 bg-white p-4"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(
          { name: name.trim(), description },
          {
            onSuccess: () => {
              setName('');
              setDescription('');
            },
          },
        );
      }}
    >
      <TextField
        label={t('groups.name')}
        hint={t('groups.name_hint')}
        value={name}
        maxLength={64}
        required
        autoComplete="off"
        onChange={(event) => {
          create.reset();
          setName(event.target.value);
        }}
      />
      <TextField
        label={t('groups.description')}
        value={description}
        maxLength={200}
        autoComplete="off"
        onChange={(event) => {
          setDescription(event.target.value);
        }}
      />
      <Button type="submit" disabled={create.isPending || name.trim() === ''}>
        {create.isPending ? t('groups.creating') : t('groups.create')}
      </Button>
      <Outcome
        outcome={
          create.isSuccess
            ? { ok: true, text: t('groups.created', { name: create.data.name }) }
            : create.isError
              ? {
                  ok: false,
                  text: t('groups.create_failed', { message: errorText(t, create.error) }),
                }
              : null
        }
      />
    </form>
  );
}

/** One group: its members with their direction, and its deletion asked in place. */
function GroupItem({ group, onDeleted }: { group: Group; onDeleted: (name: string) => void }) {
  const { t } = useTranslation(ONBOARDING_NS);
  const remove = useDeleteGroup();
  const [asking, setAsking] = useState(false);
  const count = group.members.length;
  return (
    <li className="flex flex-col gap-2 px-4 py-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-lg font-semibold break-all">{group.name}</h3>
        <span className="text-sm text-stone-700">{t('groups.members', { count })}</span>
      </div>
      {group.description !== '' && <p className="text-stone-700">{group.description}</p>}
      {count === 0 ? (
        <p className="text-sm text-stone-600">{t('groups.no_members')}</p>
      ) : (
        <ul className="flex flex-wrap gap-2">
          {group.members.map((member) => (
            <li
              key={member.callsign}
              className="rounded-full border border-stone-300 bg-stone-50 px-3 py-1 text-sm"
            >
              <span className="font-medium break-all">{member.callsign}</span>
              <span className="text-stone-700"> · {t(`groups.direction.${member.direction}`)}</span>
            </li>
          ))}
        </ul>
      )}
      {asking ? (
        <InlineConfirm
          title={t('groups.delete_title', { name: group.name })}
          text={
            count === 0
              ? t('groups.delete_text')
              : t('groups.delete_force_text', { name: group.name, count })
          }
          error={
            remove.isError && (
              <p role="alert" className="text-red-800">
                {t('groups.delete_failed', { message: errorText(t, remove.error) })}
              </p>
            )
          }
          keepLabel={t('groups.keep')}
          confirmLabel={t('groups.confirm_delete')}
          busy={remove.isPending}
          onKeep={() => {
            remove.reset();
            setAsking(false);
          }}
          onConfirm={() => {
            remove.mutate(
              { name: group.name, force: count > 0 },
              {
                onSuccess: (deleted) => {
                  onDeleted(deleted.name);
                },
              },
            );
          }}
        />
      ) : (
        <div>
          <Button
            variant="secondary"
            onClick={() => {
              setAsking(true);
            }}
          >
            {t('groups.delete', { name: group.name })}
          </Button>
        </div>
      )}
    </li>
  );
}

/**
 * /app/admin/groups: the unit's TAK Server groups (docs/directory.md): create one, see who is in
 * each and how (sends, receives or both), delete one (its members taken out after asking).
 */
export function GroupsPage() {
  const { t } = useTranslation(ONBOARDING_NS);
  const groups = useQuery(groupsQueryOptions());
  const [deleted, setDeleted] = useState<string | null>(null);
  return (
    <AdminPage title={t('groups.title')} back={paths.admin.home.path}>
      <p className="text-stone-700">{t('groups.intro')}</p>
      <CreateGroupForm />
      <h2 className="text-xl font-semibold">{t('groups.list_title')}</h2>
      <Outcome
        outcome={
          deleted === null ? null : { ok: true, text: t('groups.deleted', { name: deleted }) }
        }
      />
      <QueryState isPending={groups.isPending} error={groups.error} />
      {groups.data?.groups.length === 0 && <p className="text-stone-700">{t('groups.none')}</p>}
      {groups.data !== undefined && groups.data.groups.length > 0 && (
        <ul className="divide-y divide-stone-200 rounded-lg border border-stone-200 bg-white">
          {groups.data.groups.map((group) => (
            <GroupItem key={group.name} group={group} onDeleted={setDeleted} />
          ))}
        </ul>
      )}
    </AdminPage>
  );
}
