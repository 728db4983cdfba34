import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { CollapsibleCard } from '../../../components/collapsible-card';
import { CopyLinkButton, LinkQrCode } from '../../../components/share-link';
import { mtlsOrigin } from '../../../lib/hosts';
import { paths } from '../../../lib/paths';
import { STORAGE_KEYS, readStored } from '../../../lib/storage-keys';
import { acceptanceQueryOptions } from '../api/acceptance';

/** The link an admin opens to approve this enrollment. */
export function approvalLink(callsign: string, approveCode: string, origin = mtlsOrigin()): string {
  const query = new URLSearchParams({ callsign, approvalcode: approveCode });
  return `${origin}${paths.admin.approval.path}?${query.toString()}`;
}

/**
 * /login/enrollment: waiting for an admin. Shows the approval code, link and QR code, and polls
 * until accepted (or says so when an admin revoked the enrollment). Without a stored callsign
 * or approval code, `onMissing` takes over.
 */
export function EnrollmentPage({
  onAccepted,
  onMissing,
}: {
  onAccepted: () => void;
  onMissing: () => void;
}) {
  const { t } = useTranslation();
  const [stored] = useState(() => ({
    callsign: readStored(STORAGE_KEYS.callsign),
    approveCode: readStored(STORAGE_KEYS.approveCode),
  }));
  const missing = stored.callsign === null || stored.approveCode === null;
  const acceptance = useQuery({ ...acceptanceQueryOptions(), enabled: !missing });
  const accepted = acceptance.data === 'accepted';

  useEffect(() => {
    if (missing) onMissing();
  }, [missing, onMissing]);

  useEffect(() => {
    if (accepted) onAccepted();
  }, [accepted, onAccepted]);

  if (stored.callsign === null || stored.approveCode === null) return null;
  if (acceptance.data === 'revoked') {
    return (
      <div className="mx-auto w-full max-w-md px-4 py-6">
        <h1 className="text-2xl font-bold">{t('enrollment.title')}</h1>
        <p role="alert" className="mt-3 text-stone-700">
          {t('enrollment.revoked')}
        </p>
      </div>
    );
  }
  const link = approvalLink(stored.callsign, stored.approveCode);

  return (
    <div className="mx-auto w-full max-w-md px-4 py-6">
      <h1 className="text-2xl font-bold">{t('enrollment.title')}</h1>
      <p className="mt-3 text-stone-700">{t('enrollment.intro')}</p>
      <dl className="mt-5 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 rounded-lg border border-stone-200 bg-white p-4">
        <dt className="font-semibold">{t('enrollment.callsign')}</dt>
        <dd className="break-all">{stored.callsign}</dd>
        <dt className="font-semibold">{t('enrollment.approval_code')}</dt>
        <dd className="font-mono text-lg tracking-widest">{stored.approveCode}</dd>
      </dl>
      <div className="mt-5 flex flex-col gap-4">
        <LinkQrCode link={link} size={200} label={t('enrollment.qr_label')} />
        <CopyLinkButton
          link={link}
          copyLabel={t('enrollment.copy_link')}
          copiedLabel={t('enrollment.copied')}
        />
        <CollapsibleCard title={t('enrollment.instructions_title')}>
          <ol className="list-decimal space-y-1 pl-5">
            <li>{t('enrollment.instructions.scan')}</li>
            <li>{t('enrollment.instructions.copy')}</li>
            <li>{t('enrollment.instructions.send')}</li>
          </ol>
        </CollapsibleCard>
      </div>
      <p className="mt-5 rounded-md bg-emerald-50 p-3 text-emerald-900">
        {t('enrollment.moves_on')}
      </p>
      <p role="status" aria-live="polite" className="mt-3 text-center text-stone-700">
        {acceptance.isFetching || acceptance.isPending ? t('enrollment.checking') : ''}
        {acceptance.isError ? t('enrollment.check_failed') : ''}
      </p>
    </div>
  );
}
