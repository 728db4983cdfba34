import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../../components/button';
import { Card } from '../../../../components/card';
import { formatDateTime } from '../../../../lib/format';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { QueryState } from '../../shared/components/query-state';
import { directoryQueryOptions } from '../api/groups';

function DirectoryState() {
  const { t, i18n } = useTranslation(ONBOARDING_NS);
  const directory = useQuery({ ...directoryQueryOptions(), refetchInterval: 30_000 });
  const status = directory.data;
  return (
    <Card title={t('directory.title')}>
      <QueryState isPending={directory.isPending} error={directory.error} />
      {status !== undefined && !status.configured && (
        <p className="mt-2 text-stone-700">{t('directory.off')}</p>
      )}
      {status?.configured === true && (
        <div className="mt-2 flex flex-col gap-1">
          {status.in_sync ? (
            <p className="font-semibold text-emerald-900">
              {t('directory.in_sync', { url: status.url ?? '' })}
            </p>
          ) : (
            <p
              role="alert"
              className="rounded-md border-l-4 border-red-700 bg-red-50 p-3 text-red-900"
            >
              {t('directory.out_of_sync', { error: status.last_error ?? '' })}
            </p>
          )}
          {status.entry_errors.length > 0 && (
            <div>
              <p className="font-semibold text-stone-900">{t('directory.entry_errors')}</p>
              <ul className="list-disc pl-5 text-sm break-words text-stone-700">
                {status.entry_errors.map((failure) => (
                  <li key={failure.dn}>
                    <code>{failure.dn}</code>: {failure.error}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <p className="text-stone-700">
            {status.last_sync === null
              ? t('directory.never')
              : t('directory.last_sync', { time: formatDateTime(status.last_sync, i18n.language) })}
          </p>
          {status.pending > 0 && (
            <p className="text-stone-700">{t('directory.pending', { count: status.pending })}</p>
          )}
        </div>
      )}
      <LinkButton
        to={paths.admin.groups.path}
        variant="secondary"
        className="mt-4 w-full sm:w-auto"
      >
        {t('directory.groups_link')}
      </LinkButton>
    </Card>
  );
}

/**
 * The admin home's card of groups and the LDAP directory (docs/directory.md): whether it is in sync,
 * when it last was, how many changes wait, each entry the last sync could not write; the way to
 * the groups page.
 */
export function DirectoryCard() {
  return (
    <Suspense fallback={null}>
      <DirectoryState />
    </Suspense>
  );
}
