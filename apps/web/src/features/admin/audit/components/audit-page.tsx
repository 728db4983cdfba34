import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { AuditEventAnswer } from '@callsign/contract';
import { Button, buttonClass } from '../../../../components/button';
import { formatDateTime } from '../../../../lib/format';
import { paths } from '../../../../lib/paths';
import { visibleText } from '../../../../lib/visible-text';
import { auditCsvHref, auditQueryOptions, NO_AUDIT_FILTERS, type AuditFilters } from '../api/audit';
import { AdminPage } from '../../shared/components/admin-page';
import { AuditFilterForm } from './audit-filters';
import { actionName, detailFields } from './audit-words';
import { QueryState } from '../../shared/components/query-state';

const FILTER_KEYS = Object.keys(NO_AUDIT_FILTERS) as (keyof AuditFilters)[];

/** The applied filters live in the page's address: a filtered view can be reloaded and shared. */
function useAppliedFilters(): [AuditFilters, (filters: AuditFilters) => void] {
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(
    FILTER_KEYS.map((key) => [key, params.get(key) ?? '']),
  ) as unknown as AuditFilters;
  const apply = (next: AuditFilters) => {
    setParams(
      Object.fromEntries(
        FILTER_KEYS.filter((key) => next[key] !== '').map((key) => [key, next[key]]),
      ),
    );
  };
  return [filters, apply];
}

/** One event: a dense row (when, what, who on whom), its details on a line of their own. */
function AuditEventRows({ event }: { event: AuditEventAnswer }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? 'en';
  const failed = event.outcome === 'failure';
  const fields = detailFields(t, language, event.detail);
  const address = event.client_address ?? t('admin.audit.no_address');
  return (
    <tbody className="border-t border-stone-200">
      <tr className="align-top">
        {/* A phone wraps the day and the time onto two lines; a wider screen keeps one. */}
        <td className="w-24 py-1.5 pr-2 tabular-nums text-stone-700 sm:w-auto sm:whitespace-nowrap">
          <time dateTime={event.at}>{formatDateTime(event.at, language)}</time>
        </td>
        {/* What and who on whom flow as one line where it fits, wrapping on a phone. */}
        <td className="py-1.5">
          <div className="flex flex-wrap items-baseline gap-x-2">
            <span className="font-semibold text-stone-900" title={visibleText(event.action)}>
              {actionName(t, event.action)}
            </span>
            <span
              className={`rounded px-1.5 text-xs font-medium whitespace-nowrap ${failed ? 'bg-red-100 text-red-900' : 'bg-emerald-100 text-emerald-900'}`}
            >
              {t(failed ? 'admin.audit.failure' : 'admin.audit.success')}
            </span>
            <span className="[overflow-wrap:anywhere] text-stone-800">
              <span>
                {event.actor === null ? t('admin.audit.nobody') : visibleText(event.actor)}
              </span>
              {event.target !== null && (
                <>
                  <span className="text-stone-500" aria-hidden="true">
                    {' → '}
                  </span>
                  <span className="sr-only"> {t('admin.audit.on')} </span>
                  <span>{visibleText(event.target)}</span>
                </>
              )}
            </span>
          </div>
        </td>
      </tr>
      <tr>
        <td colSpan={2} className="pb-2 text-xs break-words text-stone-600">
          <dl className="flex flex-wrap gap-x-3">
            <div className="flex gap-1">
              <dt>{t('admin.audit.address')}:</dt>
              <dd className="break-all">{address}</dd>
            </div>
            {fields.map((field, index) => (
              // A field may be named twice (an unnamed one's fallback): its place tells them apart.
              <div key={`${index}-${field.name}`} className="flex gap-1">
                <dt>{field.name}:</dt>
                <dd className="break-all text-stone-800">{field.value}</dd>
              </div>
            ))}
          </dl>
        </td>
      </tr>
    </tbody>
  );
}

/**
 * /app/admin/audit: the audit log, newest first, filtered and paged ("Load more" follows the
 * cursor); "Export CSV" downloads the whole filtered range, not only what is on screen.
 */
export function AuditPage() {
  const { t } = useTranslation();
  const [applied, apply] = useAppliedFilters();
  const [draft, setDraft] = useState<AuditFilters>(applied);
  const log = useInfiniteQuery(auditQueryOptions(applied));
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];

  return (
    <AdminPage title={t('admin.audit.title')} back={paths.admin.manageUsers.path}>
      <p className="text-stone-700">{t('admin.audit.intro')}</p>
      <AuditFilterForm value={draft} applied={applied} onChange={setDraft} onApply={apply} />
      <div className="flex flex-col gap-1">
        <a
          href={auditCsvHref(applied)}
          download
          className={buttonClass('secondary', 'w-full sm:w-auto sm:self-start')}
        >
          {t('admin.audit.export')}
        </a>
        <p className="text-sm text-stone-600">{t('admin.audit.export_hint')}</p>
      </div>
      {/* A page that failed to load more says so here; what was loaded stays below. */}
      <QueryState isPending={log.isPending} error={log.error} />
      {log.data !== undefined && (
        <section aria-labelledby="audit-events" className="flex flex-col gap-2">
          <h2 id="audit-events" className="text-xl font-bold">
            {t('admin.audit.events')}
          </h2>
          <p role="status" className="text-stone-700">
            {events.length === 0
              ? t('admin.audit.none')
              : t('admin.audit.shown', { count: events.length })}
          </p>
          <table className="w-full border-collapse text-left text-sm">
            <caption className="sr-only">{t('admin.audit.events')}</caption>
            <thead className="text-xs text-stone-600">
              <tr>
                <th scope="col" className="pr-2 pb-1 font-semibold">
                  {t('admin.audit.time')}
                </th>
                <th scope="col" className="pb-1 font-semibold">
                  {t('admin.audit.what_who')}
                </th>
              </tr>
            </thead>
            {events.map((event) => (
              <AuditEventRows key={event.id} event={event} />
            ))}
          </table>
          {log.hasNextPage ? (
            <Button
              variant="secondary"
              disabled={log.isFetchingNextPage}
              onClick={() => void log.fetchNextPage()}
            >
              {log.isFetchingNextPage ? t('loading') : t('admin.audit.load_more')}
            </Button>
          ) : (
            events.length > 0 && <p className="text-stone-600">{t('admin.audit.end')}</p>
          )}
        </section>
      )}
    </AdminPage>
  );
}
