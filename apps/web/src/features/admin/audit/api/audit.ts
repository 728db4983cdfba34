import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiPaths, type AuditListResponse } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

/** The filters as the form holds them: text as typed, days as `YYYY-MM-DD` (local). */
export interface AuditFilters {
  actor: string;
  action: string;
  target: string;
  /** The first day shown. */
  from: string;
  /** The last day shown (included). */
  to: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = {
  actor: '',
  action: '',
  target: '',
  from: '',
  to: '',
};

/** Events per page on screen. */
export const AUDIT_PAGE_SIZE = 50;

/** Midnight starting a local day, as an ISO instant; undefined for no day. */
function startOfDay(day: string, plusDays = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (match === null) return undefined;
  const [, year, month, date] = match.map(Number);
  return new Date(year ?? 0, (month ?? 1) - 1, (date ?? 1) + plusDays).toISOString();
}

/**
 * The API's filter parameters: days become the instants that bound them in the browser's own
 * time zone (`to` is the end of its day, as the API's `to` is excluded).
 */
export function auditFilterParams(filters: AuditFilters): Record<string, string> {
  const params: Record<string, string> = {};
  for (const key of ['actor', 'action', 'target'] as const) {
    const value = filters[key].trim();
    if (value !== '') params[key] = value;
  }
  const from = startOfDay(filters.from);
  const to = startOfDay(filters.to, 1);
  if (from !== undefined) params.from = from;
  if (to !== undefined) params.to = to;
  return params;
}

/** GET admin/audit: one page below `before` (the previous page's `next_before`). */
export function fetchAuditPage(
  filters: AuditFilters,
  before: string | null,
): Promise<AuditListResponse> {
  const query: Record<string, string> = {
    ...auditFilterParams(filters),
    limit: String(AUDIT_PAGE_SIZE),
  };
  if (before !== null) query.before = before;
  return apiJson(apiPaths.audit, 'auditList', { query });
}

export function auditQueryOptions(filters: AuditFilters) {
  return infiniteQueryOptions({
    queryKey: adminKeys.auditList(filters),
    queryFn: ({ pageParam }) => fetchAuditPage(filters, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_before,
  });
}

/** GET admin/audit.csv with the same filters: a download the browser makes with the key. */
export function auditCsvHref(filters: AuditFilters): string {
  const query = new URLSearchParams(auditFilterParams(filters)).toString();
  return query === '' ? apiPaths.auditCsv : `${apiPaths.auditCsv}?${query}`;
}
