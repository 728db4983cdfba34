import {
  iso,
  MEMBERS_PAGE_DEFAULT,
  type MemberRow,
  type MemberSort,
  type MemberSortKey,
  type MembersListQuery,
  type MembersListResponse,
} from '@callsign/contract';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import {
  findMemberTableRow,
  groupsOfMembers,
  listMemberTableRows,
  sortValueOf,
  type MemberTableCursor,
  type MemberTableRow,
} from './members-table-repository.js';

// GET admin/members (docs/api.md#the-members-table): search, sort and keyset pages over every member. The
// cursor (`next`, sent back as `before`) is the last row's sort value and callsign,
// `<value>.<callsign>`, or the callsign alone in the callsign order.

function parseSort(sort: MemberSort | undefined): { key: MemberSortKey; descending: boolean } {
  if (sort === undefined) return { key: 'callsign', descending: false };
  return sort.startsWith('-')
    ? { key: sort.slice(1) as MemberSortKey, descending: true }
    : { key: sort as MemberSortKey, descending: false };
}

function cursorOf(row: MemberTableRow, sort: MemberSortKey): string {
  const value = sortValueOf(row, sort);
  return value === undefined ? row.callsign : `${String(value)}.${row.callsign}`;
}

/** The cursor `before` as the page's order reads it; 400 when it was made for another order. */
function readCursor(before: string, sort: MemberSortKey): MemberTableCursor {
  const dot = before.indexOf('.');
  if ((sort === 'callsign') !== dot < 0) {
    throw new BadRequestError(`before: not a cursor of the ${sort} order (use the page's next)`);
  }
  if (dot < 0) return { callsign: before };
  return { value: Number(before.slice(0, dot)), callsign: before.slice(dot + 1) };
}

async function answerRows(executor: Executor, rows: MemberTableRow[]): Promise<MemberRow[]> {
  const groups = await groupsOfMembers(
    executor,
    rows.map((row) => row.callsign),
  );
  return rows.map((row) => ({
    callsign: row.callsign,
    admin: row.admin,
    state: row.status,
    team: row.team,
    role: row.role,
    groups: [...(groups.get(row.callsign.toLowerCase()) ?? [])],
    enrolled_at: iso(row.enrolledAt),
    key_expires_at: row.keyExpiresAt === null ? null : iso(row.keyExpiresAt),
    last_seen_tak_at: row.lastSeenTakAt === null ? null : iso(row.lastSeenTakAt),
  }));
}

/** One page of the members table. */
export async function membersPage(
  executor: Executor,
  query: MembersListQuery,
): Promise<MembersListResponse> {
  const { key, descending } = parseSort(query.sort);
  const limit = query.limit ?? MEMBERS_PAGE_DEFAULT;
  const rows = await listMemberTableRows(executor, {
    search: query.q?.toLowerCase(),
    sort: key,
    descending,
    after: query.before === undefined ? undefined : readCursor(query.before, key),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    members: await answerRows(executor, page),
    next: rows.length > limit && last !== undefined ? cursorOf(last, key) : null,
  };
}

/** One member's row of the members table, in any state; 404 for nobody. */
export async function memberRow(executor: Executor, callsign: string): Promise<MemberRow> {
  const row = await findMemberTableRow(executor, callsign);
  if (row === undefined) throw new NotFoundError(`No member ${callsign}`);
  const [answer] = await answerRows(executor, [row]);
  if (answer === undefined) throw new NotFoundError(`No member ${callsign}`);
  return answer;
}
