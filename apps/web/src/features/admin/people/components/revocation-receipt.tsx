import type { RevocationReceipt } from '@callsign/contract';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../../components/button';
import { Dialog } from '../../../../components/dialog';
import { formatDateTime } from '../../../../lib/format';

function Check({ ok, label, children }: { ok: boolean; label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-semibold text-stone-700">{label}</dt>
      <dd className={`mb-2 break-words ${ok ? '' : 'rounded-md bg-red-50 p-2 text-red-800'}`}>
        {children}
      </dd>
    </>
  );
}

/**
 * How a revocation ended, as the portal's CRL and OCSP responder now tell relying parties (the
 * server read both back after the revocation). A check that does not confirm it is shown in red.
 */
export function RevocationReceiptDialog({
  callsign,
  receipt,
  onClose,
}: {
  callsign: string;
  receipt: RevocationReceipt;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const { crl, ocsp } = receipt;
  const revokedCount = receipt.certificates_revoked;
  return (
    <Dialog
      open
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      title={t('admin.receipt.title', { callsign })}
      description={t('admin.receipt.intro')}
      footer={<Button onClick={onClose}>{t('admin.receipt.close')}</Button>}
    >
      <dl>
        <Check ok label={t('admin.receipt.certificates')}>
          {t('admin.receipt.certificates_revoked', { count: revokedCount })}
        </Check>
        <Check
          ok={crl !== null && crl.lists_revoked === revokedCount}
          label={t('admin.receipt.crl')}
        >
          {crl === null ? (
            t('admin.receipt.crl_unchecked')
          ) : (
            <>
              <span className="block">
                {t('admin.receipt.crl_signed', {
                  number: crl.number,
                  time: formatDateTime(crl.this_update, language),
                })}
              </span>
              <span className="block">
                {crl.lists_revoked === revokedCount
                  ? t('admin.receipt.crl_lists_all', { count: revokedCount })
                  : t('admin.receipt.crl_lists_some', {
                      listed: crl.lists_revoked,
                      count: revokedCount,
                    })}
              </span>
            </>
          )}
        </Check>
        <Check
          ok={receipt.newest_serial === null || ocsp?.status === 'revoked'}
          label={t('admin.receipt.ocsp')}
        >
          {receipt.newest_serial === null ? (
            t('admin.receipt.no_key')
          ) : (
            <>
              <span className="block">
                {t('admin.receipt.newest_key')}{' '}
                <span className="font-mono break-all">{receipt.newest_serial}</span>
              </span>
              <span className="block">
                {ocsp === null
                  ? t('admin.receipt.ocsp_unchecked')
                  : ocsp.status === 'revoked'
                    ? t('admin.receipt.ocsp_revoked', {
                        time: formatDateTime(ocsp.revoked_at ?? ocsp.produced_at, language),
                      })
                    : t(`admin.receipt.ocsp_${ocsp.status}`)}
              </span>
            </>
          )}
        </Check>
      </dl>
    </Dialog>
  );
}
