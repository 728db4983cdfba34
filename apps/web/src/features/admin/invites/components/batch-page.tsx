import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { slipStateSchema, type SlipState } from '@callsign/contract';
import { Button, LinkButton } from '../../../../components/button';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { errorText } from '../../../../lib/error-text';
import { formatDateTime } from '../../../../lib/format';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { batchQueryOptions, useVoidBatch } from '../api/bulk';
import { TitledPage } from '../../../../components/titled-page';
import { SlipStateBadge } from './slip-state-badge';

/**
 * /app/admin/user-management/bulk/{batchId}: a batch's slips with where each stands, asked
 * again every few seconds (issued, enrolled, key, revoked; void or expired when never used), the
 * way to the print view, and "void unused" for the slips nobody used.
 */
export function BatchPage() {
  const { t, i18n } = useTranslation(ONBOARDING_NS);
  const { batchId = '' } = useParams();
  const batch = useQuery(batchQueryOptions(batchId));
  const voiding = useVoidBatch(batchId);
  const [asking, setAsking] = useState(false);
  const slips = batch.data?.slips ?? [];
  const count = (state: SlipState) => slips.filter((slip) => slip.state === state).length;
  const unused = count('issued') + count('expired');

  return (
    <TitledPage title={t('batch.title')} back={paths.admin.codeList.path}>
      {batch.isPending && <p role="status">{t('batch.loading')}</p>}
      {batch.isError && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {t('batch.failed', { message: errorText(t, batch.error) })}
        </p>
      )}
      {batch.data !== undefined && (
        <>
          <p className="text-stone-700">
            {t('batch.about', {
              count: slips.length,
              created: formatDateTime(batch.data.created, i18n.language),
              expires: formatDateTime(batch.data.expires_at, i18n.language),
              team: batch.data.team,
              role: batch.data.role,
            })}
          </p>
          <ul aria-label={t('batch.counts')} className="flex flex-wrap gap-2">
            {slipStateSchema.options
              .filter((state) => count(state) > 0)
              .map((state) => (
                <li key={state} className="flex items-center gap-1">
                  <SlipStateBadge state={state} />
                  <span className="font-semibold">{count(state)}</span>
                </li>
              ))}
          </ul>
          <div className="flex flex-col gap-2 sm:flex-row sm:justify-between">
            <LinkButton to={paths.admin.batchPrint.href(batchId)}>{t('batch.print')}</LinkButton>
            <Button
              variant="danger-outline"
              disabled={unused === 0 || voiding.isPending}
              onClick={() => {
                voiding.reset();
                setAsking(true);
              }}
            >
              {t('batch.void')}
            </Button>
          </div>
          <p role="status" aria-live="polite" className={voiding.isSuccess ? '' : 'sr-only'}>
            {voiding.isSuccess ? t('batch.voided', { count: voiding.data }) : ''}
          </p>
          {voiding.isError && (
            <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
              {t('batch.failed', { message: errorText(t, voiding.error) })}
            </p>
          )}
          <p className="text-sm text-stone-600">{t('batch.legend')}</p>
          <table className="w-full border-collapse rounded-lg bg-white text-left shadow-sm">
            <thead>
              <tr className="border-b border-stone-300">
                <th scope="col" className="px-2 py-2 sm:px-3">
                  {t('batch.callsign')}
                </th>
                <th scope="col" className="px-2 py-2 sm:px-3">
                  {t('batch.code')}
                </th>
                <th scope="col" className="px-2 py-2 sm:px-3">
                  {t('batch.state_title')}
                </th>
              </tr>
            </thead>
            <tbody>
              {slips.map((slip) => (
                <tr key={slip.invite_code} className="border-b border-stone-200">
                  <th scope="row" className="px-2 py-2 font-semibold break-all sm:px-3">
                    {slip.callsign}
                  </th>
                  <td className="px-2 py-2 font-mono break-all sm:px-3 sm:tracking-widest sm:break-normal">
                    {slip.invite_code}
                  </td>
                  <td className="px-2 py-2 sm:px-3">
                    <SlipStateBadge state={slip.state} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {asking && (
        <ConfirmDialog
          open
          onOpenChange={(open) => {
            if (!open && !voiding.isPending) setAsking(false);
          }}
          title={t('batch.void_title', { count: unused })}
          message={t('batch.void_text')}
          confirmLabel={t('batch.void')}
          cancelLabel={t('batch.cancel')}
          danger
          pending={voiding.isPending}
          onConfirm={() => {
            voiding.mutate(undefined, {
              onSettled: () => {
                setAsking(false);
              },
            });
          }}
        />
      )}
    </TitledPage>
  );
}
