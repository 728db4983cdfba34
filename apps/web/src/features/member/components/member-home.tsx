import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Card } from '../../../components/card';
import { MemberGroups } from './member-groups';
import { MemberPreset } from './member-preset';
import { paths } from '../../../lib/paths';

/**
 * /app/users/{callsign}: the member's home with the service card the app puts below and the
 * `notice` it puts on top (the renewal banner).
 */
export function MemberHome({
  callsign,
  serviceCard,
  notice,
}: {
  callsign: string;
  serviceCard: ReactNode;
  notice?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto flex w-full max-w-2xl flex-col gap-5 px-4 py-6">
      <h1 className="text-2xl font-bold">{t('member.welcome', { callsign })}</h1>
      {notice}
      <Card title={t('member.details')}>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
          <dt className="font-semibold">{t('member.callsign')}</dt>
          <dd className="break-all">{callsign}</dd>
          <dt className="font-semibold">{t('member.key')}</dt>
          <dd>{t('member.key_in_use')}</dd>
          <MemberPreset />
          <MemberGroups />
        </dl>
        <Link
          to={paths.keys.path}
          className="mt-3 inline-flex min-h-11 items-center rounded text-emerald-900 underline underline-offset-4 focus-visible:outline-3 focus-visible:outline-amber-500"
        >
          {t('keys.link')}
        </Link>
      </Card>
      {serviceCard}
    </div>
  );
}
