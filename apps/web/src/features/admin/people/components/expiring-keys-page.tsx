import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { Dialog } from '../../../../components/dialog';
import { SegmentedChoice } from '../../../../components/segmented-choice';
import { formatDate } from '../../../../lib/format';
import { daysUntil } from '../../../../lib/key-names';
import { paths } from '../../../../lib/paths';
import { expiringQueryOptions } from '../api/keys';
import { AdminPage } from '../../shared/components/admin-page';
import { QueryState } from '../../shared/components/query-state';
import { UserKeysSection } from './user-keys-section';

/** The windows the page offers: the next 30 or 90 days. */
export const EXPIRING_WINDOWS = [30, 90] as const;
type Window = (typeof EXPIRING_WINDOWS)[number];

/**
 * /app/admin/user-management/expiring-keys: members whose newest key ends within 30 or 90 days
 * (or has ended), soonest first. A member opens their keys, with the renewal code.
 */
export function ExpiringKeysPage() {
  const { t, i18n } = useTranslation();
  const [windowDays, setWindowDays] = useState<Window>(30);
  const [picked, setPicked] = useState<string | null>(null);
  const members = useQuery(expiringQueryOptions(windowDays));
  return (
    <AdminPage title={t('admin.expiring.title')} back={paths.admin.manageUsers.path}>
      <p className="text-stone-700">{t('admin.expiring.intro')}</p>
      <SegmentedChoice
        legend={t('admin.expiring.window')}
        legendClassName="font-semibold"
        name="window"
        options={EXPIRING_WINDOWS.map((days) => ({
          value: days,
          label: t('admin.expiring.days', { count: days }),
        }))}
        value={windowDays}
        onChange={setWindowDays}
        gridClassName="grid-cols-2 sm:max-w-sm"
      />
      <QueryState isPending={members.isPending} error={members.error} />
      {members.data?.length === 0 && (
        <p className="text-stone-700">{t('admin.expiring.none', { count: windowDays })}</p>
      )}
      {members.data !== undefined && members.data.length > 0 && (
        <ul className="divide-y divide-stone-200 rounded-lg border border-stone-200 bg-white">
          {members.data.map((member) => {
            const days = daysUntil(member.expires_at);
            const date = formatDate(member.expires_at, i18n.language);
            return (
              <li key={member.callsign}>
                <button
                  type="button"
                  onClick={() => {
                    setPicked(member.callsign);
                  }}
                  className="flex min-h-11 w-full flex-col items-start gap-0.5 px-4 py-2 text-left hover:bg-emerald-50 focus-visible:outline-3 focus-visible:outline-amber-500 sm:flex-row sm:items-center sm:justify-between"
                >
                  <span className="font-medium break-all">{member.callsign}</span>
                  <span className={days === 0 ? 'text-red-800' : 'text-stone-700'}>
                    {days === 0
                      ? t('admin.expiring.expired', { date })
                      : t('admin.expiring.expires', { count: days, date })}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {picked !== null && (
        <Dialog
          open
          onOpenChange={(open) => {
            if (!open) setPicked(null);
          }}
          title={picked}
          footer={
            <Button
              variant="secondary"
              onClick={() => {
                setPicked(null);
              }}
            >
              {t('admin.users.go_back')}
            </Button>
          }
        >
          <UserKeysSection callsign={picked} />
        </Dialog>
      )}
    </AdminPage>
  );
}
