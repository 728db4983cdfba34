import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import {
  INVITE_DEFAULT_MAX_USES,
  INVITE_DEFAULT_VALID_DAYS,
  type InviteState,
} from '@callsign/contract';
import { Button, LinkButton } from '../../../../components/button';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { TextField } from '../../../../components/text-field';
import { errorText } from '../../../../lib/error-text';
import {
  defaultInviteOptions,
  inviteCodesQueryOptions,
  useChangeInviteCode,
  useCreateInviteCode,
  type InviteCode,
} from '../api/invites';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { BatchSummaries } from './batch-summaries';
import { InviteCodeSummary } from './invite-code-summary';
import { InviteOptionsDialog } from './invite-options-dialog';
import { InviteCodeMenu, type CodeAction } from './invite-code-menu';
import { Outcome, QueryState } from '../../shared/components/query-state';

const BADGE: Record<InviteState, string> = {
  active: 'bg-emerald-100 text-emerald-900',
  deactivated: 'bg-stone-200 text-stone-800',
  expired: 'bg-amber-100 text-amber-900',
  'used-up': 'bg-sky-100 text-sky-900',
};

function StateBadge({ state }: { state: InviteState }) {
  const { t } = useTranslation();
  const { t: tOnboarding } = useTranslation(ONBOARDING_NS);
  const text =
    state === 'active' || state === 'deactivated'
      ? t(`admin.codes.${state}`)
      : tOnboarding(`codes.state.${state}`);
  return (
    <span className={`rounded-full px-2 py-0.5 text-sm font-medium ${BADGE[state]}`}>{text}</span>
  );
}

/**
 * /app/admin/user-management/code-list: create a code (then its QR page), the codes with their
 * state, and each code's menu; every menu choice asks first.
 */
export function CodeListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const codes = useQuery(inviteCodesQueryOptions());
  const create = useCreateInviteCode();
  const change = useChangeInviteCode();
  const [asked, setAsked] = useState<{ action: CodeAction; code: string } | null>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [withOptions, setWithOptions] = useState(false);
  const { t: tOnboarding } = useTranslation(ONBOARDING_NS);
  // Bulk slips are followed on their batch page, not one by one here.
  const shown = codes.data?.filter((invite) => invite.batchId === null);
  const created = (code: string) => {
    void navigate(paths.admin.inviteCode.href(code));
  };

  const confirm = () => {
    if (asked === null) return;
    const { action, code } = asked;
    if (action === 'show') {
      void navigate(paths.admin.inviteCode.href(code));
      return;
    }
    change.mutate(
      { change: action, code },
      {
        onSuccess: () => {
          setOutcome({ ok: true, text: t(`admin.codes.done.${action}`, { code }) });
        },
        onError: (error) => {
          setOutcome({ ok: false, text: t('admin.list_error', { message: errorText(t, error) }) });
        },
        onSettled: () => {
          setAsked(null);
        },
      },
    );
  };

  const pick = (invite: InviteCode, action: CodeAction) => {
    setOutcome(null);
    setAsked({ action, code: invite.code });
  };

  return (
    <AdminPage title={t('admin.codes.title')} back={paths.admin.manageUsers.path}>
      <p className="text-stone-700">{t('admin.codes.intro')}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <Button
          disabled={create.isPending}
          onClick={() => {
            setOutcome(null);
            create.mutate(defaultInviteOptions(Date.now()), { onSuccess: created });
          }}
        >
          {create.isPending && !withOptions ? t('admin.codes.creating') : t('admin.codes.create')}
        </Button>
        <Button
          variant="secondary"
          disabled={create.isPending}
          onClick={() => {
            setOutcome(null);
            create.reset();
            setWithOptions(true);
          }}
        >
          {tOnboarding('codes.with_options')}
        </Button>
        <LinkButton variant="secondary" to={paths.admin.bulk.path}>
          {tOnboarding('codes.bulk')}
        </LinkButton>
      </div>
      <p className="text-sm text-stone-600">
        {tOnboarding('codes.default_hint', {
          days: INVITE_DEFAULT_VALID_DAYS,
          uses: INVITE_DEFAULT_MAX_USES,
        })}
      </p>
      {withOptions && (
        <InviteOptionsDialog
          pending={create.isPending}
          error={create.error}
          onCreate={(body) => {
            create.mutate(body, { onSuccess: created });
          }}
          onClose={() => {
            setWithOptions(false);
          }}
        />
      )}
      {create.isError && !withOptions && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {t('admin.list_error', { message: errorText(t, create.error) })}
        </p>
      )}
      <div role="search">
        <TextField
          label={t('admin.codes.search')}
          hideLabel
          type="search"
          placeholder={t('admin.codes.search')}
          autoComplete="off"
        />
      </div>
      <Outcome outcome={outcome} />
      <QueryState isPending={codes.isPending} error={codes.error} />
      {shown?.length === 0 && <p className="text-stone-700">{t('admin.codes.none')}</p>}
      {shown !== undefined && shown.length > 0 && (
        <ul className="divide-y divide-stone-200 rounded-lg border border-stone-200 bg-white shadow-sm">
          {shown.map((invite) => (
            <li key={invite.code} className="flex items-center gap-2 px-3 py-2">
              <Link
                to={paths.admin.inviteCode.href(invite.code)}
                className="flex min-h-11 min-w-0 flex-1 flex-wrap items-center gap-x-3 gap-y-1 rounded hover:underline focus-visible:outline-3 focus-visible:outline-amber-500"
              >
                <span className="font-mono text-lg tracking-widest break-all">{invite.code}</span>
                <StateBadge state={invite.state} />
                <InviteCodeSummary invite={invite} />
              </Link>
              <InviteCodeMenu
                invite={invite}
                onPick={(action) => {
                  pick(invite, action);
                }}
              />
            </li>
          ))}
        </ul>
      )}
      {codes.data !== undefined && <BatchSummaries codes={codes.data} />}
      {asked !== null && (
        <ConfirmDialog
          open
          onOpenChange={(open) => {
            if (!open && !change.isPending) setAsked(null);
          }}
          title={t(`admin.codes.confirm.${asked.action}.title`, { code: asked.code })}
          message={t(`admin.codes.confirm.${asked.action}.text`, { code: asked.code })}
          confirmLabel={t(`admin.codes.confirm.${asked.action}.button`)}
          cancelLabel={t('dialogs.cancel')}
          danger={asked.action === 'delete' || asked.action === 'deactivate'}
          pending={change.isPending}
          onConfirm={confirm}
        />
      )}
    </AdminPage>
  );
}
