import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TakReadinessResponse } from '@callsign/contract';
import { Card } from '../../../../components/card';
import { formatAge, formatDate, formatDateTime } from '../../../../lib/format';
import { takReadinessQueryOptions } from '../api/tak-readiness';
import { QueryState } from '../../shared/components/query-state';

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-semibold text-stone-700">{label}</dt>
      <dd className="mb-2 break-words">{children}</dd>
    </>
  );
}

/**
 * Who checked keys lately (an OCSP request, a CRL fetch) and the warnings: no OCSP request for a
 * day, a CRL fetch older than half the CRL's validity (before a TAK Server's copy lapses).
 */
function Presence({ presence }: { presence: TakReadinessResponse['presence'] }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const { last_ocsp_check: ocsp, last_crl_fetch: crl } = presence;
  const days = Math.round((presence.crl_fetch_warn_after_seconds / 86_400) * 10) / 10;
  const seen = (fetch: typeof ocsp, text: 'last_check' | 'last_crl_fetch') =>
    fetch !== null && (
      <p>
        {fetch.address === null
          ? t(`admin.readiness.${text}_anywhere`, { age: formatAge(fetch.age_seconds, language) })
          : t(`admin.readiness.${text}`, {
              address: fetch.address,
              age: formatAge(fetch.age_seconds, language),
            })}
      </p>
    );
  return (
    <div className="text-sm">
      {seen(ocsp, 'last_check')}
      {seen(crl, 'last_crl_fetch')}
      <p>{t('admin.readiness.members_seen', { count: presence.members_seen_last_day })}</p>
      {presence.warnings.length > 0 && (
        <ul className="mt-1 flex flex-col gap-1">
          {presence.warnings.map((warning) => (
            <li key={warning} className="rounded-md bg-amber-50 p-2 text-amber-900">
              {t(`admin.readiness.warning_${warning}`, { days })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Where phones enroll (host and the port they reach), whether they trust its certificate by
 * themselves, and the warnings: a public port other than ATAK's fixed 8446, and phones that will
 * need the trust package before the QR code works.
 */
function Enrollment({ enrollment }: { enrollment: TakReadinessResponse['enrollment'] }) {
  const { t } = useTranslation();
  if (enrollment === null) return <p>{t('admin.readiness.enrollment_off')}</p>;
  const { host, port, root, chain_end: chainEnd, trust_basis: basis } = enrollment;
  return (
    <div className="text-sm">
      <span className="font-mono text-base">
        {host}:{port}
      </span>
      {enrollment.trusted_by_phones && (
        <p>
          {basis === 'root'
            ? t('admin.readiness.trusted_root', { root: root ?? '' })
            : t('admin.readiness.trusted_setting')}
        </p>
      )}
      {enrollment.warnings.length > 0 && (
        <ul className="mt-1 flex flex-col gap-1">
          {enrollment.warnings.map((warning) => (
            <li key={warning} className="rounded-md bg-amber-50 p-2 text-amber-900">
              {t(`admin.readiness.warning_${warning}`, {
                host,
                port,
                why:
                  basis === 'root'
                    ? ''
                    : t(`admin.readiness.why_${basis}`, { host, chainEnd: chainEnd ?? '' }),
              })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The admin home's TAK readiness: the TAK server the packages point at, the truststore they
 * carry, the CRL a TAK Server loads, and the tak-check command for what only a connection shows.
 */
export function TakReadinessCard() {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const readiness = useQuery(takReadinessQueryOptions());
  const facts = readiness.data;
  return (
    <Card title={t('admin.readiness.title')}>
      <p className="mt-2 text-stone-700">{t('admin.readiness.intro')}</p>
      <div className="mt-3">
        <QueryState isPending={readiness.isPending} error={readiness.error} />
      </div>
      {facts !== undefined && (
        <dl className="mt-3">
          <Fact label={t('admin.readiness.server')}>
            <span className="font-mono">
              {facts.tak.host}:{facts.tak.port}
            </span>
          </Fact>
          <Fact label={t('admin.readiness.enrollment')}>
            <Enrollment enrollment={facts.enrollment} />
          </Fact>
          <Fact label={t('admin.readiness.truststore')}>
            {facts.truststore.source === 'file'
              ? t('admin.readiness.source_file', { file: facts.truststore.file ?? '' })
              : t('admin.readiness.source_portal')}
            {facts.truststore.error !== null && (
              <span role="alert" className="mt-1 block rounded-md bg-red-50 p-2 text-red-800">
                {t('admin.readiness.truststore_error', { error: facts.truststore.error })}
              </span>
            )}
            <ul className="mt-1 flex flex-col gap-1 text-sm">
              {facts.truststore.certificates.map((certificate) => (
                <li key={`${certificate.subject} ${certificate.not_after}`}>
                  <span className="font-mono break-all">{certificate.subject}</span>{' '}
                  <span
                    className={
                      certificate.expired ? 'font-semibold text-red-800' : 'text-stone-600'
                    }
                  >
                    {t(
                      certificate.expired ? 'admin.readiness.expired' : 'admin.readiness.expires',
                      {
                        date: formatDate(certificate.not_after, language),
                      },
                    )}
                  </span>
                </li>
              ))}
            </ul>
          </Fact>
          <Fact label={t('admin.readiness.crl')}>
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-stone-600">{t('admin.readiness.crl_number')}</dt>
              <dd className="font-mono break-all">{facts.crl.number}</dd>
              <dt className="text-stone-600">{t('admin.readiness.crl_this_update')}</dt>
              <dd>{formatDateTime(facts.crl.this_update, language)}</dd>
              <dt className="text-stone-600">{t('admin.readiness.crl_next_update')}</dt>
              <dd>{formatDateTime(facts.crl.next_update, language)}</dd>
              <dt className="text-stone-600">{t('admin.readiness.crl_age')}</dt>
              <dd>{formatAge(facts.crl.age_seconds, language)}</dd>
              <dt className="text-stone-600">{t('admin.readiness.crl_url')}</dt>
              <dd className="font-mono break-all">{facts.crl.url}</dd>
            </dl>
          </Fact>
          <Fact label={t('admin.readiness.presence')}>
            <Presence presence={facts.presence} />
          </Fact>
          <Fact label={t('admin.readiness.check')}>
            <span className="block text-stone-700">{t('admin.readiness.check_text')}</span>
            <code className="mt-1 block rounded-md bg-stone-100 p-2 font-mono text-sm break-all">
              {facts.check_command}
            </code>
          </Fact>
        </dl>
      )}
    </Card>
  );
}
