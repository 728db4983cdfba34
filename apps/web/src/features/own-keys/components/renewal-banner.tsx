import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/button';
import { daysUntil, formatDay } from '../../../lib/key-names';
import { paths } from '../../../lib/paths';
import { ownKeysQueryOptions } from '../api/keys';
import { newestLiveKey, renewalStage, TAK_KEY_PURPOSES, type RenewalStage } from '../renewal';

const URGENT: readonly RenewalStage[] = [7, 3];

/**
 * "Your key expires in N days", from 30 days before the newest key ends and
 * more urgent from 7: on the member home and the key page for all the member's keys, and in the
 * TAK card (`scope="tak"`) for the keys TAK connects with. Leads to the key page, unless it is
 * on it. Shows nothing while the keys load, or when nothing runs out soon.
 */
export function RenewalBanner({
  scope = 'all',
  linkToKeys = true,
}: {
  scope?: 'all' | 'tak';
  linkToKeys?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const keys = useQuery(ownKeysQueryOptions());
  if (keys.data === undefined) return null;
  const newest = newestLiveKey(keys.data, scope === 'tak' ? TAK_KEY_PURPOSES : undefined);
  if (newest === undefined) return null;
  const stage = renewalStage(newest.expires_at);
  if (stage === null) return null;
  const urgent = URGENT.includes(stage);
  // Inside the TAK card (whose title is the h2) it is a part of the card.
  const Heading = scope === 'tak' ? 'h3' : 'h2';
  const text = t(scope === 'tak' ? 'renewal.tak_text' : 'renewal.text', {
    count: daysUntil(newest.expires_at),
    date: formatDay(newest.expires_at, i18n.language),
  });
  return (
    <section
      aria-labelledby={titleId}
      data-renewal-stage={stage}
      className={`rounded-lg border-l-4 p-4 ${urgent ? 'border-red-700 bg-red-50 text-red-900' : 'border-amber-500 bg-amber-50 text-stone-900'}`}
    >
      <Heading id={titleId} className="text-lg font-bold">
        {t(urgent ? 'renewal.title_urgent' : 'renewal.title')}
      </Heading>
      <p className="mt-1">{text}</p>
      {linkToKeys && (
        <LinkButton to={paths.keys.path} className="mt-3 w-full sm:w-auto">
          {t('renewal.action')}
        </LinkButton>
      )}
    </section>
  );
}
