import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { idmConsoleQueryOptions } from '../../system/api/idm-console';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { ExternalLinkCard, LinkCard } from '../../shared/components/link-card';
import { QueryState } from '../../shared/components/query-state';

/**
 * /app/admin/manageusers: the three user pages, the audit log and the identity-management console
 * (a link only when the operator set one up: the default address points nowhere).
 */
export function UserAreasPage() {
  const { t } = useTranslation();
  const idmConsole = useQuery(idmConsoleQueryOptions());
  return (
    <AdminPage title={t('admin.manageusers.title')} back={paths.admin.home.path}>
      <nav aria-label={t('admin.manageusers.title')} className="flex flex-col gap-3">
        <LinkCard
          to={paths.admin.codeList.path}
          title={t('admin.manageusers.add_users')}
          text={t('admin.manageusers.add_users_text')}
        />
        <LinkCard
          to={paths.admin.approval.path}
          title={t('admin.manageusers.approve_users')}
          text={t('admin.manageusers.approve_users_text')}
        />
        <LinkCard
          to={paths.admin.userManagement.path}
          title={t('admin.manageusers.manage_users')}
          text={t('admin.manageusers.manage_users_text')}
        />
        <LinkCard
          to={paths.admin.expiringKeys.path}
          title={t('admin.manageusers.expiring_keys')}
          text={t('admin.manageusers.expiring_keys_text')}
        />
        <LinkCard
          to={paths.admin.audit.path}
          title={t('admin.manageusers.audit_log')}
          text={t('admin.manageusers.audit_log_text')}
        />
      </nav>
      <section aria-labelledby="idm-console-title" className="flex flex-col gap-2">
        <h2 id="idm-console-title" className="text-xl font-bold">
          {t('admin.manageusers.idm_title')}
        </h2>
        <QueryState isPending={idmConsole.isPending} error={idmConsole.error} />
        {idmConsole.data?.configured === false && (
          <p className="text-stone-700">{t('admin.manageusers.idm_none')}</p>
        )}
        {idmConsole.data?.configured === true && (
          <ExternalLinkCard
            href={idmConsole.data.idm_console_url}
            title={t('admin.manageusers.idm_open')}
            text={t('admin.manageusers.idm_text')}
            newTab={t('admin.new_tab')}
          />
        )}
      </section>
    </AdminPage>
  );
}
