import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { Button } from '../../../../components/button';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { formatDate } from '../../../../lib/format';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { Outcome, QueryState } from '../../shared/components/query-state';
import { memberQueryOptions, type MemberRow } from '../api/members';
import { useChangeRole, useRevokePerson } from '../api/people';
import { memberActionFailure } from './action-failure';
import { Groups, KeyExpiry, LastSeen, MemberState } from './member-facts';
import { MemberGroupsEditor } from '../../groups/components/member-groups-editor';
import { PresetEditor } from './preset-editor';
import { PromoteKeysNote } from './promote-keys-note';
import { RevocationReceiptDialog } from './revocation-receipt';
import { UserKeysSection } from './user-keys-section';

type Asking = 'promote' | 'demote' | 'revoke' | null;

function Facts({ member }: { member: MemberRow }) {
  const { t, i18n } = useTranslation();
  const row = (label: string, value: ReactNode) => (
    <div className="flex flex-col gap-0.5 sm:flex-row sm:gap-2">
      <dt className="text-stone-700 sm:w-48 sm:shrink-0">{label}</dt>
      <dd className="font-medium">{value}</dd>
    </div>
  );
  return (
    <dl className="flex flex-col gap-2 rounded-lg border border-stone-300 bg-white p-4">
      {row(
        t('admin.member.access'),
        member.admin ? t('admin.users.is_admin') : t('admin.users.is_member'),
      )}
      {row(t('admin.members.state'), <MemberState state={member.state} />)}
      {row(t('admin.members.role_team'), `${member.role}, ${member.team}`)}
      {row(t('admin.members.groups'), <Groups groups={member.groups} />)}
      {row(t('admin.member.enrolled'), formatDate(member.enrolled_at, i18n.language))}
      {row(t('admin.members.key_expires'), <KeyExpiry at={member.key_expires_at} />)}
      {row(t('admin.members.last_seen'), <LastSeen at={member.last_seen_tak_at} />)}
    </dl>
  );
}

/**
 * The actions on one member, each named for what it does and asked about first, with its side
 * effects said (demoting deactivates the invite codes the admin made). On yourself they are off,
 * with the reason shown.
 */
function MemberActions({ member, self }: { member: MemberRow; self: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [asking, setAsking] = useState<Asking>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const changeRole = useChangeRole();
  const revoke = useRevokePerson();
  const pending = changeRole.isPending || revoke.isPending;
  const { callsign } = member;
  const change = member.admin ? 'demote' : 'promote';

  // The receipt outlives the member's row, which reads revoked once the lists are asked again.
  if (revoke.data !== undefined) {
    return (
      <RevocationReceiptDialog
        callsign={callsign}
        receipt={revoke.data.receipt}
        onClose={() => {
          void navigate(paths.admin.people.path);
        }}
      />
    );
  }
  if (member.state !== 'active') {
    return <p className="text-stone-700">{t(`admin.member.no_actions_${member.state}`)}</p>;
  }

  const failed = (action: 'promote' | 'demote' | 'revoke', error: unknown) => {
    setAsking(null);
    setOutcome({ ok: false, text: memberActionFailure(t, action, error) });
  };

  const changeIt = () => {
    changeRole.mutate(
      { change, callsign },
      {
        onSuccess: () => {
          setAsking(null);
          setOutcome({ ok: true, text: t(`admin.users.${change}d`, { callsign }) });
        },
        onError: (error) => {
          failed(change, error);
        },
      },
    );
  };

  return (
    <section aria-labelledby="member-actions" className="flex flex-col gap-3">
      <h2 id="member-actions" className="text-xl font-bold">
        {t('admin.member.actions')}
      </h2>
      {self && (
        <p id="member-self" className="rounded-md bg-amber-50 p-3 text-amber-950">
          {t('admin.member.self')}
        </p>
      )}
      <Outcome outcome={outcome} />
      <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        <Button
          variant="secondary"
          disabled={self || pending}
          aria-describedby={self ? 'member-self' : undefined}
          onClick={() => {
            setOutcome(null);
            setAsking(change);
          }}
        >
          {t(`admin.users.${change}`)}
        </Button>
        <Button
          variant="danger"
          disabled={self || pending}
          aria-describedby={self ? 'member-self' : undefined}
          onClick={() => {
            setOutcome(null);
            setAsking('revoke');
          }}
        >
          {t('admin.member.revoke')}
        </Button>
      </div>
      <ConfirmDialog
        open={asking === 'promote' || asking === 'demote'}
        onOpenChange={(open) => {
          if (!open && !pending) setAsking(null);
        }}
        title={t(`admin.member.${change}_title`, { callsign })}
        message={
          <>
            {t(`admin.member.${change}_effects`, { callsign })}
            {change === 'promote' && <PromoteKeysNote callsign={callsign} />}
          </>
        }
        cancelLabel={t('admin.users.go_back')}
        confirmLabel={
          changeRole.isPending ? t('admin.users.saving') : t(`admin.member.${change}_confirm`)
        }
        danger={change === 'demote'}
        pending={pending}
        onConfirm={changeIt}
      />
      <ConfirmDialog
        open={asking === 'revoke'}
        onOpenChange={(open) => {
          if (!open && !pending) setAsking(null);
        }}
        title={t('admin.users.revoke_title', { callsign })}
        message={t('admin.users.revoke_warning', { callsign })}
        cancelLabel={t('admin.users.go_back')}
        confirmLabel={revoke.isPending ? t('admin.users.revoking') : t('admin.member.revoke')}
        danger
        pending={pending}
        onConfirm={() => {
          revoke.mutate(callsign, {
            onError: (error) => {
              failed('revoke', error);
            },
          });
        }}
      />
    </section>
  );
}

/**
 * /app/admin/people/{callsign}: one member's facts, actions, TAK preset and keys. `self` is the
 * signed-in admin's callsign; `tools`: what the app adds for this member (the TAK enrollment QR).
 */
export function MemberPage({
  self,
  tools,
}: {
  self: string | null;
  tools?: (callsign: string) => ReactNode;
}) {
  const { callsign = '' } = useParams();
  const member = useQuery(memberQueryOptions(callsign));
  const title = member.data?.callsign ?? callsign;
  const isSelf = self !== null && title.toLowerCase() === self.toLowerCase();
  return (
    <AdminPage title={title} back={paths.admin.people.path}>
      <QueryState isPending={member.isPending} error={member.error} />
      {member.data !== undefined && (
        <>
          <Facts member={member.data} />
          <MemberActions member={member.data} self={isSelf} />
          {member.data.state === 'active' && (
            <>
              {tools?.(member.data.callsign)}
              <PresetEditor callsign={member.data.callsign} />
              <UserKeysSection callsign={member.data.callsign} />
            </>
          )}
          {(member.data.state === 'active' || member.data.state === 'pending') && (
            <MemberGroupsEditor callsign={member.data.callsign} />
          )}
        </>
      )}
    </AdminPage>
  );
}
