import type { MemberRow } from '@callsign/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDate, formatDateTime } from '../../../../lib/format';

/** When a TAK Server last saw the member: a date and time, or "never" in plain words. */
export function LastSeen({ at }: { at: string | null }) {
  const { t, i18n } = useTranslation();
  if (at === null) return <span className="text-stone-700">{t('admin.members.never')}</span>;
  return <time dateTime={at}>{formatDateTime(at, i18n.language)}</time>;
}

/** When the member's newest key ends: a date, "expired" past it, or "no key". */
export function KeyExpiry({ at }: { at: string | null }) {
  const { t, i18n } = useTranslation();
  const [now] = useState(() => Date.now());
  if (at === null) return <span className="text-stone-700">{t('admin.members.no_key')}</span>;
  const date = formatDate(at, i18n.language);
  if (Date.parse(at) <= now) {
    return (
      <span className="font-medium text-red-800">{t('admin.members.key_expired', { date })}</span>
    );
  }
  return <time dateTime={at}>{date}</time>;
}

/** The member's state in words (active, waiting, rejected, revoked). */
export function MemberState({ state }: { state: MemberRow['state'] }) {
  const { t } = useTranslation();
  const tone = state === 'active' ? 'text-emerald-900' : 'text-stone-700';
  return <span className={tone}>{t(`admin.members.state_${state}`)}</span>;
}

/** The member's groups, or a dash for none. */
export function Groups({ groups }: { groups: readonly string[] }) {
  const { t } = useTranslation();
  if (groups.length === 0)
    return (
      <span className="text-stone-700">
        <span aria-hidden="true">–</span>
        <span className="sr-only">{t('admin.members.no_groups')}</span>
      </span>
    );
  return <>{groups.join(', ')}</>;
}
