import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import {
  apiPaths,
  type MemberRow,
  type MemberSort,
  type MembersListResponse,
} from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/api/query-keys';

export type { MemberRow, MemberSort };

/** What the members table asks for: a search text (empty: everyone) and an order. */
export interface MemberTableFilters {
  q: string;
  sort: MemberSort;
}

/** One page of GET admin/members; `before` the `next` of the page before. */
export function fetchMembersPage(
  filters: MemberTableFilters,
  before: string | null,
): Promise<MembersListResponse> {
  const query = new URLSearchParams({ sort: filters.sort });
  const q = filters.q.trim();
  if (q !== '') query.set('q', q);
  if (before !== null) query.set('before', before);
  return apiJson(`${apiPaths.members}?${query.toString()}`, 'membersList');
}

/** The members table's pages, one after another ("Show more"). */
export function membersTableQueryOptions(filters: MemberTableFilters) {
  return infiniteQueryOptions({
    queryKey: adminKeys.memberTable(filters),
    queryFn: ({ pageParam }) => fetchMembersPage(filters, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    // While the next search runs, the last answer stays on screen instead of a blank table.
    placeholderData: keepPreviousData,
  });
}

/** GET admin/members/{callsign}: one member's row, in any state. */
export function memberQueryOptions(callsign: string) {
  return queryOptions({
    queryKey: adminKeys.member(callsign),
    queryFn: async (): Promise<MemberRow> =>
      (await apiJson(apiPaths.member(callsign), 'member')).member,
  });
}
