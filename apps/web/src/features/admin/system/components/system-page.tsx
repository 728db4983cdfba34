import { useTranslation } from 'react-i18next';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { CaExpiryCard } from './ca-expiry-card';
import { TakReadinessCard } from './tak-readiness';

/** /app/admin/system: the TAK Server's readiness as the portal sees it, and the CAs' expiry. */
export function SystemPage() {
  const { t } = useTranslation();
  return (
    <AdminPage title={t('admin.system.title')} back={paths.admin.home.path}>
      <p className="text-stone-700">{t('admin.system.intro')}</p>
      <TakReadinessCard />
      <CaExpiryCard />
    </AdminPage>
  );
}
