import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../../components/button';
import { Card } from '../../../../components/card';
import { paths } from '../../../../lib/paths';
import { DirectoryCard } from '../../groups/components/directory-card';
import { CaExpiryCard } from '../../system/components/ca-expiry-card';
import { TakReadinessCard } from '../../system/components/tak-readiness';

/**
 * /app/admin: the welcome, the way to the user management, the service card the app puts
 * below them (the TAK card), and the TAK Server readiness the portal can see; `notice` on top
 * (the renewal banner of the admin's own keys), the CAs' expiry at the end.
 */
export function AdminHome({
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
      <div>
        <h1 className="text-2xl font-bold">{t('admin.title')}</h1>
        <p className="mt-1 text-lg break-words text-stone-800">
          {t('admin.home.welcome', { callsign })}
        </p>
      </div>
      {notice}
      <Card title={t('admin.home.users_title')}>
        <p className="mt-2 text-stone-700">{t('admin.home.users_text')}</p>
        <LinkButton to={paths.admin.manageUsers.path} className="mt-4 w-full sm:w-auto">
          {t('admin.home.manage_users')}
        </LinkButton>
      </Card>
      <Card title={t('admin.home.keys_title')}>
        <p className="mt-2 text-stone-700">{t('admin.home.keys_text')}</p>
        <LinkButton to={paths.keys.path} variant="secondary" className="mt-4 w-full sm:w-auto">
          {t('keys.link')}
        </LinkButton>
      </Card>
      {serviceCard}
      <TakReadinessCard />
      <DirectoryCard />
      <CaExpiryCard />
    </div>
  );
}
