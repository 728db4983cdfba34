import type { SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_ACTION_GROUPS, type AuditActionGroup } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { CollapsibleCard } from '../../../../components/collapsible-card';
import { SelectField, type SelectOptionGroup } from '../../../../components/select-field';
import { TextField } from '../../../../components/text-field';
import { NO_AUDIT_FILTERS, type AuditFilters } from '../api/audit';
import { useActionName } from './audit-words';

/**
 * The action picker's choices: every action the portal records, under its group, the group's
 * first choice being the whole group (the API matches an action and every action below it).
 */
function useActionGroups(): SelectOptionGroup[] {
  const { t } = useTranslation();
  const actionName = useActionName();
  return (Object.keys(AUDIT_ACTION_GROUPS) as AuditActionGroup[]).map((group) => {
    const actions: readonly string[] = AUDIT_ACTION_GROUPS[group];
    const label = t(`admin.audit.groups.${group}`);
    const whole =
      actions.length === 1 && actions[0] === group
        ? []
        : [{ value: group, label: t('admin.audit.whole_group', { group: label }) }];
    return {
      label,
      options: [
        ...whole,
        ...actions.map((action) => ({ value: action, label: actionName(action) })),
      ],
    };
  });
}

/** A screen wide enough to show the filters open without pushing the events out of sight. */
function isWideScreen(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(min-width: 640px)').matches;
}

/**
 * The audit log's filters: who, what, on whom, and a range of days; applied on submit. Folded
 * on a phone unless some are in use, so the events show first.
 */
export function AuditFilterForm({
  value,
  applied,
  onChange,
  onApply,
}: {
  value: AuditFilters;
  /** The filters in use now (the title counts them). */
  applied: AuditFilters;
  onChange: (value: AuditFilters) => void;
  onApply: (value: AuditFilters) => void;
}) {
  const { t } = useTranslation();
  const inUse = Object.values(applied).filter((field) => field !== '').length;
  const groups = useActionGroups();
  const known = groups.some((group) =>
    group.options.some((option) => option.value === value.action),
  );
  const set = (key: keyof AuditFilters) => (event: { target: { value: string } }) => {
    onChange({ ...value, [key]: event.target.value });
  };
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    onApply(value);
  };
  return (
    <CollapsibleCard
      title={
        inUse === 0
          ? t('admin.audit.filters')
          : `${t('admin.audit.filters')} · ${t('admin.audit.filters_in_use', { count: inUse })}`
      }
      defaultOpen={inUse > 0 || isWideScreen()}
    >
      <form
        onSubmit={submit}
        aria-label={t('admin.audit.filters')}
        className="grid grid-cols-1 gap-3 sm:grid-cols-2"
      >
        <TextField
          label={t('admin.audit.actor')}
          value={value.actor}
          onChange={set('actor')}
          autoComplete="off"
          maxLength={200}
        />
        <TextField
          label={t('admin.audit.target')}
          value={value.target}
          onChange={set('target')}
          autoComplete="off"
          maxLength={200}
        />
        <SelectField
          label={t('admin.audit.action')}
          value={value.action}
          onChange={set('action')}
          className="sm:col-span-2"
          options={[
            { value: '', label: t('admin.audit.all_actions') },
            // An action from an address written by hand, not one of the list: kept, as asked.
            ...(value.action === '' || known ? [] : [{ value: value.action, label: value.action }]),
          ]}
          groups={groups}
        />
        <TextField
          label={t('admin.audit.from')}
          type="date"
          value={value.from}
          onChange={set('from')}
          max={value.to === '' ? undefined : value.to}
        />
        <TextField
          label={t('admin.audit.to')}
          type="date"
          value={value.to}
          onChange={set('to')}
          min={value.from === '' ? undefined : value.from}
        />
        <div className="flex flex-col gap-2 sm:col-span-2 sm:flex-row">
          <Button type="submit">{t('admin.audit.apply')}</Button>
          <Button
            variant="secondary"
            onClick={() => {
              onChange(NO_AUDIT_FILTERS);
              onApply(NO_AUDIT_FILTERS);
            }}
          >
            {t('admin.audit.clear')}
          </Button>
        </div>
      </form>
    </CollapsibleCard>
  );
}
