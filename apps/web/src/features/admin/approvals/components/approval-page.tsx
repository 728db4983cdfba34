import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { waitingUsersQueryOptions } from '../api/approvals';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';
import { ApprovalDialog } from './approval-dialog';
import { QueryState } from '../../shared/components/query-state';

interface Target {
  callsign: string;
  code: string;
}

/**
 * /app/admin/user-management/approval: the users waiting for approval. The enrollee's link
 * (?callsign=&approvalcode=) opens the dialog prefilled.
 */
export function ApprovalPage() {
  const { t } = useTranslation();
  const waiting = useQuery(waitingUsersQueryOptions());
  const [params, setParams] = useSearchParams();
  const [target, setTarget] = useState<Target | null>(() => {
    const callsign = params.get('callsign') ?? '';
    return callsign === '' ? null : { callsign, code: params.get('approvalcode') ?? '' };
  });

  const close = () => {
    setTarget(null);
    // The link has done its work: a reload does not open the dialog again.
    if (params.has('callsign') || params.has('approvalcode')) {
      setParams({}, { replace: true });
    }
  };

  return (
    <AdminPage title={t('admin.approval.title')} back={paths.admin.manageUsers.path}>
      <p className="text-stone-700">{t('admin.approval.intro')}</p>
      <QueryState isPending={waiting.isPending} error={waiting.error} />
      {waiting.data?.length === 0 && (
        <p className="rounded-lg border border-stone-200 bg-white p-4 text-stone-700">
          {t('admin.approval.no_waiting')}
        </p>
      )}
      {waiting.data !== undefined && waiting.data.length > 0 && (
        <section aria-labelledby="waiting-title">
          <h2 id="waiting-title" className="mb-2 text-xl font-bold">
            {t('admin.approval.waiting', { count: waiting.data.length })}
          </h2>
          <ul className="divide-y divide-stone-200 rounded-lg border border-stone-200 bg-white shadow-sm">
            {waiting.data.map((callsign) => (
              <li key={callsign}>
                <button
                  type="button"
                  onClick={() => {
                    setTarget({ callsign, code: '' });
                  }}
                  className="flex min-h-11 w-full items-center justify-between gap-2 px-4 py-2 text-left break-all hover:bg-emerald-50 focus-visible:outline-3 focus-visible:outline-amber-500"
                >
                  <span className="font-medium">{callsign}</span>
                  <span className="shrink-0 text-emerald-900">{t('admin.approval.open')}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {target !== null && (
        <ApprovalDialog
          key={`${target.callsign}|${target.code}`}
          callsign={target.callsign}
          initialCode={target.code}
          onClose={close}
        />
      )}
    </AdminPage>
  );
}
