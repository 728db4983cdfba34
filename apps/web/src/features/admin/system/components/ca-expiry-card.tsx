import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CaRollover } from '@callsign/contract';
import { useTranslation } from 'react-i18next';
import { Card } from '../../../../components/card';
import { formatDate } from '../../../../lib/format';
import { daysUntil } from '../../../../lib/key-names';
import { caExpiryQueryOptions } from '../../people/api/keys';
import { QueryState } from '../../shared/components/query-state';

/** How far ahead the admin home warns that a CA of the portal runs out. */
export const CA_WARNING_DAYS = 365;

/** The common name of an X.509 subject as the server writes it (`O=TAK\nCN=Name`), or all of it. */
function commonName(subject: string): string {
  return /(?:^|\n)CN=([^\n]*)$/.exec(subject)?.[1] ?? subject;
}

/**
 * Where the issuing CA's rollover stands (docs/operations.md#rolling-the-issuing-ca-over) and what the operator does next: how
 * many members still hold a key of the old issuing CA during one.
 */
function RolloverSection({ rollover }: { rollover: CaRollover }) {
  const { t, i18n } = useTranslation();
  const headingId = useId();
  const overlap = rollover.state === 'overlap';
  return (
    <section aria-labelledby={headingId} className="mt-4">
      <h3 id={headingId} className="font-semibold">
        {t('admin.ca.rollover')}
      </h3>
      <p className="mt-1">
        {overlap
          ? t('admin.ca.rollover_overlap', {
              date: formatDate(rollover.begun_at ?? '', i18n.language),
              generation: rollover.generation,
              previous: rollover.previous?.generation ?? rollover.generation - 1,
            })
          : t('admin.ca.rollover_none', { generation: rollover.generation })}
      </p>
      {overlap && (
        <>
          <p className="mt-1 font-semibold" data-testid="members-on-previous">
            {t('admin.ca.on_previous', { count: rollover.members_on_previous })}
          </p>
          <p className="mt-1">
            {t('admin.ca.renew_by', { date: formatDate(rollover.renew_by ?? '', i18n.language) })}
          </p>
        </>
      )}
      {!rollover.can_roll_over && <p className="mt-1">{t('admin.ca.cannot_roll')}</p>}
      <p
        className={`mt-2 rounded-md border-l-4 p-3 ${rollover.next === 'nothing' ? 'border-stone-400 bg-stone-50' : 'border-amber-500 bg-amber-50'}`}
      >
        {t(`admin.ca.next.${rollover.next}`)}
      </p>
    </section>
  );
}

/**
 * The portal's certificate authority on the admin home: when the issuing and the root CA
 * expire, a warning from a year before either does (nothing renews them by itself), and the
 * chain the members' keys hang from (an adopted CA's up to its root: docs/tak.md).
 */
export function CaExpiryCard() {
  const { t, i18n } = useTranslation();
  const ca = useQuery(caExpiryQueryOptions());
  const chainId = useId();
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
      {ca.data && (
        <>
          <h3 id={chainId} className="mt-4 font-semibold">
            {t('admin.ca.chain')}
          </h3>
          <ol aria-labelledby={chainId} className="mt-2 space-y-2">
            {ca.data.chain.map((entry) => (
              <li key={entry.subject} className="rounded-md border border-stone-300 p-2">
                <span className="font-medium break-words">{commonName(entry.subject)}</span>
                <span className="block text-sm text-stone-700">
                  {[
                    ...(entry.signs_members ? [t('admin.ca.signs_members')] : []),
                    ...(entry.self_signed ? [t('admin.ca.self_signed')] : []),
                    t('admin.ca.expires', { date: formatDate(entry.expires_at, i18n.language) }),
                  ].join(' · ')}
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
      {ca.data && <RolloverSection rollover={ca.data.rollover} />}
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
