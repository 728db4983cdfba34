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

/** An event's detail as short text: `key: value` pairs of an object, else its JSON. */
function detailText(detail: unknown): string | null {
  if (detail === null || detail === undefined) return null;
  if (typeof detail !== 'object' || Array.isArray(detail))
    return visibleText(JSON.stringify(detail));
  const entries = Object.entries(detail as Record<string, unknown>);
  if (entries.length === 0) return null;
  return visibleText(
    entries
      .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', '),
  );
}

function AuditEventItem({ event }: { event: AuditEventAnswer }) {
  const { t, i18n } = useTranslation();
  const detail = detailText(event.detail);
  const failed = event.outcome === 'failure';
  return (
    <li className="rounded-lg border border-stone-200 bg-white p-3 shadow-sm">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <span className="font-mono font-semibold break-all text-stone-900">
          {visibleText(event.action)}
        </span>
        <span
          className={`rounded-full px-2 py-0.5 text-sm font-medium ${failed ? 'bg-red-100 text-red-900' : 'bg-emerald-100 text-emerald-900'}`}
        >
          {t(failed ? 'admin.audit.failure' : 'admin.audit.success')}
        </span>
      </div>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm sm:grid-cols-[auto_1fr_auto_1fr]">
        <dt className="text-stone-600">{t('admin.audit.time')}</dt>
        <dd>
          <time dateTime={event.at}>{formatDateTime(event.at, i18n.resolvedLanguage)}</time>
        </dd>
        <dt className="text-stone-600">{t('admin.audit.who')}</dt>
        <dd className="break-all">
          {event.actor === null ? t('admin.audit.nobody') : visibleText(event.actor)}
        </dd>
        {event.target !== null && (
          <>
            <dt className="text-stone-600">{t('admin.audit.target')}</dt>
            <dd className="break-all">{visibleText(event.target)}</dd>
          </>
        )}
        <dt className="text-stone-600">{t('admin.audit.address')}</dt>
        <dd className="break-all">{event.client_address ?? t('admin.audit.no_address')}</dd>
        {detail !== null && (
          <>
            <dt className="text-stone-600">{t('admin.audit.details')}</dt>
            <dd className="font-mono break-all sm:col-span-3">{detail}</dd>
          </>
        )}
      </dl>
    </li>
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
        <section aria-labelledby="audit-events" className="flex flex-col gap-3">
          <h2 id="audit-events" className="text-xl font-bold">
            {t('admin.audit.events')}
          </h2>
          <p role="status" className="text-stone-700">
            {events.length === 0
              ? t('admin.audit.none')
              : t('admin.audit.shown', { count: events.length })}
          </p>
          <ol className="flex flex-col gap-2">
            {events.map((event) => (
              <AuditEventItem key={event.id} event={event} />
            ))}
          </ol>
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
