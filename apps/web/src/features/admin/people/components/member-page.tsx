import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { formatDate } from '../../../../lib/format';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { QueryState } from '../../shared/components/query-state';
import { refusalText, takCode, type ActionTarget } from '../actions/definitions';
import { MemberActions } from '../actions/member-actions';
import { memberQueryOptions, type MemberRow } from '../api/members';
import { Groups, KeyExpiry, LastSeen, MemberState } from './member-facts';
import { MemberGroupsEditor } from '../../groups/components/member-groups-editor';
import { PresetEditor } from './preset-editor';
import { UserKeysSection } from './user-keys-section';

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
        <MemberSections target={{ member: member.data, self: isSelf }} tools={tools} />
      )}
    </AdminPage>
  );
}

function MemberSections({
  target,
  tools,
}: {
  target: ActionTarget & { member: MemberRow };
  tools?: (callsign: string) => ReactNode;
}) {
  const { member } = target;
  return (
    <>
      <Facts member={member} />
      <MemberActions target={target} />
      {takCode.offered(target) && <TakCodeTool target={target} tools={tools} />}
      {member.state === 'active' && (
        <>
          <PresetEditor callsign={member.callsign} />
          <UserKeysSection callsign={member.callsign} target={target} />
        </>
      )}
      {(member.state === 'active' || member.state === 'pending') && (
        <MemberGroupsEditor callsign={member.callsign} />
      )}
    </>
  );
}

/** The TAK enrollment station the app adds, or why an admin cannot make this member one. */
function TakCodeTool({
  target,
  tools,
}: {
  target: ActionTarget;
  tools?: (callsign: string) => ReactNode;
}) {
  const { t } = useTranslation();
  const refusal = takCode.refusal(target);
  if (refusal === null) return tools?.(target.member.callsign);
  return <p className="text-sm text-stone-700">{refusalText(t, refusal)}</p>;
}
