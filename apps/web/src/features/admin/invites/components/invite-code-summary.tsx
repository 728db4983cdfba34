import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../../lib/format';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { visibleText } from '../../../../lib/visible-text';
import type { InviteCode } from '../api/invites';

/** What a code of the list carries besides its state: label, uses, expiry, preset, approval. */
export function InviteCodeSummary({ invite }: { invite: InviteCode }) {
  const { t, i18n } = useTranslation(ONBOARDING_NS);
  const facts = [
    invite.maxUses === null
      ? t('codes.uses_unlimited', { count: invite.uses })
      : t('codes.uses', { uses: invite.uses, max: invite.maxUses }),
    invite.expiresAt === null
      ? null
      : t('codes.expires', { time: formatDateTime(invite.expiresAt, i18n.language) }),
    invite.team === null && invite.role === null
      ? null
      : `${invite.team ?? t('codes.default')} · ${invite.role ?? t('codes.default')}`,
    invite.autoApprove ? t('codes.auto_approve') : null,
  ].filter((fact) => fact !== null);
  return (
    <span className="flex w-full min-w-0 flex-col gap-0.5 text-sm text-stone-700">
      {invite.label !== null && (
        <span className="font-semibold break-words text-stone-900">
          {visibleText(invite.label)}
        </span>
      )}
      <span>{facts.join(' · ')}</span>
    </span>
  );
}
