import { useQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GroupDirection } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { SelectField } from '../../../../components/select-field';
import { errorText } from '../../../../lib/error-text';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { groupsQueryOptions, memberGroupsQueryOptions, useSetMemberGroups } from '../api/groups';

type Choice = GroupDirection | 'none';
const CHOICES: readonly Choice[] = ['none', 'both', 'in', 'out'];

function GroupsForm({ callsign }: { callsign: string }) {
  const { t } = useTranslation(ONBOARDING_NS);
  const all = useQuery(groupsQueryOptions());
  const stored = useQuery(memberGroupsQueryOptions(callsign));
  const save = useSetMemberGroups(callsign);
  const [edited, setEdited] = useState<Record<string, Choice> | null>(null);
  if (all.isPending || stored.isPending) {
    return <p className="text-stone-700">{t('groups.loading')}</p>;
  }
  if (all.isError || stored.isError) {
    return (
      <p role="alert" className="text-red-800">
        {t('groups.load_failed', { message: errorText(t, all.error ?? stored.error) })}
      </p>
    );
  }
  const saved: Record<string, Choice> = Object.fromEntries(
    stored.data.groups.map((group) => [group.name, group.direction]),
  );
  const shown = edited ?? saved;
  const choiceOf = (name: string): Choice => shown[name] ?? 'none';
  const changed = all.data.groups.some(
    (group) => choiceOf(group.name) !== (saved[group.name] ?? 'none'),
  );
  return (
    <form
      className="flex flex-col gap-3 rounded-md border border-stone-200 p-3"
      onSubmit={(event) => {
        event.preventDefault();
        const groups = all.data.groups.flatMap((group) => {
          const choice = choiceOf(group.name);
          return choice === 'none' ? [] : [{ name: group.name, direction: choice }];
        });
        save.mutate(groups, {
          onSuccess: () => {
            setEdited(null);
          },
        });
      }}
    >
      <h3 className="font-semibold">{t('groups.member_title')}</h3>
      {all.data.groups.length === 0 ? (
        <p className="text-stone-700">{t('groups.member_none_defined')}</p>
      ) : (
        all.data.groups.map((group) => (
          <SelectField
            key={group.name}
            label={group.name}
            hint={group.description === '' ? undefined : group.description}
            value={choiceOf(group.name)}
            disabled={save.isPending}
            options={CHOICES.map((choice) => ({
              value: choice,
              label: t(`groups.direction.${choice}`),
            }))}
            onChange={(event) => {
              save.reset();
              setEdited({ ...shown, [group.name]: event.target.value as Choice });
            }}
          />
        ))
      )}
      <p className="text-sm text-stone-600">{t('groups.member_hint')}</p>
      {all.data.groups.length > 0 && (
        <Button type="submit" variant="secondary" disabled={!changed || save.isPending}>
          {save.isPending ? t('groups.saving') : t('groups.save')}
        </Button>
      )}
      <p
        role="status"
        aria-live="polite"
        className={save.isSuccess ? 'text-emerald-900' : 'sr-only'}
      >
        {save.isSuccess ? t('groups.saved', { callsign: save.data.callsign }) : ''}
      </p>
      {save.isError && (
        <p role="alert" className="text-red-800">
          {t('groups.save_failed', { message: errorText(t, save.error) })}
        </p>
      )}
    </form>
  );
}

/**
 * A member's TAK Server groups with the direction of each (docs/directory.md), saved on its own:
 * self-contained, so it can sit in any admin view of one member.
 */
export function MemberGroupsEditor({ callsign }: { callsign: string }) {
  return (
    <Suspense fallback={null}>
      <GroupsForm callsign={callsign} />
    </Suspense>
  );
}
