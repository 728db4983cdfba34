import { useId, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { CollapsibleCard } from '../../../../components/collapsible-card';
import { TextField } from '../../../../components/text-field';
import { NO_AUDIT_FILTERS, type AuditFilters } from '../api/audit';

/** Actions (and groups of them) the server records, offered as the action field is typed. */
const ACTIONS = [
  'sign-in',
  'member',
  'member.add-admin',
  'member.promote',
  'member.demote',
  'member.revoke',
  'enrollment',
  'enrollment.create',
  'enrollment.accept',
  'enrollment.lock',
  'invite',
  'key',
  'key.download',
  'tak',
  'key.revoke',
  'key.supersede',
  'renewal-code.create',
  'tak.packages',
  'tak.enrollment-token',
  'tak.enroll',
  'certificate.server',
  'admin-code.create',
  'audit.export',
  'backup.create',
  'backup.restore',
  'tak-check',
];

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
  const actionsId = useId();
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
        <TextField
          label={t('admin.audit.action')}
          hint={t('admin.audit.action_hint')}
          value={value.action}
          onChange={set('action')}
          list={actionsId}
          autoComplete="off"
          maxLength={200}
          className="sm:col-span-2"
        />
        <datalist id={actionsId}>
          {ACTIONS.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
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
