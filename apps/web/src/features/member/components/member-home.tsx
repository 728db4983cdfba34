import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Card } from '../../../components/card';
import { MemberPreset } from './member-preset';

/** /app/users/{callsign}: the member's home with the service card the app puts below. */
export function MemberHome({
  callsign,
  serviceCard,
}: {
  callsign: string;
  serviceCard: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto flex w-full max-w-2xl flex-col gap-5 px-4 py-6">
      <h1 className="text-2xl font-bold">{t('member.welcome', { callsign })}</h1>
      <Card title={t('member.details')}>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
          <dt className="font-semibold">{t('member.callsign')}</dt>
          <dd className="break-all">{callsign}</dd>
          <dt className="font-semibold">{t('member.key')}</dt>
          <dd>{t('member.key_in_use')}</dd>
          <MemberPreset />
        </dl>
      </Card>
      {serviceCard}
    </div>
  );
}
