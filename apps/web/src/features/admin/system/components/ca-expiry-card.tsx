import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Card } from '../../../../components/card';
import { formatDate } from '../../../../lib/format';
import { daysUntil } from '../../../../lib/key-names';
import { caExpiryQueryOptions } from '../../people/api/keys';
import { QueryState } from '../../shared/components/query-state';

/** How far ahead the admin home warns that a CA of the portal runs out. */
export const CA_WARNING_DAYS = 365;

/**
 * The portal's own certificate authority on the admin home: when the issuing and the root CA
 * expire, and a warning from a year before either does (nothing renews them by itself).
 */
export function CaExpiryCard() {
  const { t, i18n } = useTranslation();
  const ca = useQuery(caExpiryQueryOptions());
  const rows = ca.data && [
    { name: t('admin.ca.issuing'), expiresAt: ca.data.issuing.expires_at },
    { name: t('admin.ca.root'), expiresAt: ca.data.root.expires_at },
  ];
  const soonest = rows
    ?.map((row) => ({ ...row, days: daysUntil(row.expiresAt) }))
    .sort((a, b) => a.days - b.days)[0];
  return (
    <Card title={t('admin.ca.title')}>
      <QueryState isPending={ca.isPending} error={ca.error} />
      {rows !== undefined && (
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
          {rows.map((row) => (
            <div key={row.name} className="contents">
              <dt className="font-semibold">{row.name}</dt>
              <dd>{t('admin.ca.expires', { date: formatDate(row.expiresAt, i18n.language) })}</dd>
            </div>
          ))}
        </dl>
      )}
      {soonest !== undefined && soonest.days <= CA_WARNING_DAYS && (
        <p
          role="alert"
          className="mt-3 rounded-md border-l-4 border-red-700 bg-red-50 p-3 text-red-900"
        >
          {t('admin.ca.warning', { name: soonest.name, count: soonest.days })}
        </p>
      )}
    </Card>
  );
}
