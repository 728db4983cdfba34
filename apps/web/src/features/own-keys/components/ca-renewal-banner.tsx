import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/button';
import { formatDay } from '../../../lib/key-names';
import { paths } from '../../../lib/paths';
import { caRenewalQueryOptions } from '../api/keys';

/**
 * "Get a new key by {date}": during a CA rollover, for a member who still holds a key of the
 * issuing CA being retired (docs/operations.md#rolling-the-issuing-ca-over; GET me/keys' `renew_ca_by`). Leads to the key page,
 * unless it is on it. Shows nothing otherwise, or while the answer loads.
 */
export function CaRenewalBanner({ linkToKeys = true }: { linkToKeys?: boolean }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const renewal = useQuery(caRenewalQueryOptions());
  const renewBy = renewal.data;
  if (renewBy === undefined || renewBy === null) return null;
  const date = formatDay(renewBy, i18n.language);
  return (
    <section
      aria-labelledby={titleId}
      className="rounded-lg border-l-4 border-amber-500 bg-amber-50 p-4 text-stone-900"
    >
      <h2 id={titleId} className="text-lg font-bold">
        {t('ca_renewal.title', { date })}
      </h2>
      <p className="mt-1">{t('ca_renewal.text', { date })}</p>
      {linkToKeys && (
        <LinkButton to={paths.keys.path} className="mt-3 w-full sm:w-auto">
          {t('ca_renewal.action')}
        </LinkButton>
      )}
    </section>
  );
}
