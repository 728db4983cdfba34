import { sql, type RawBuilder } from 'kysely';
import type { MemberSortKey } from '@callsign/contract';
import type { MemberStatus } from '../../db/schema.js';
import { isPostgres, type Executor } from '../../db/transaction.js';

// The admin's members table (docs/api.md#the-members-table, GET admin/members): every member in any state with
// their admin role, TAK preset, the expiry of their newest valid key and when a TAK Server last
// asked about one of their keys. Keyset paging: a page is the rows after the last one shown in
// the chosen order, so a page costs the same however deep it lies.

/** One member as the members table shows them. */
export interface MemberTableRow {
  callsign: string;
  admin: boolean;
  status: MemberStatus;
  team: string;
  role: string;
  enrolledAt: number;
  keyExpiresAt: number | null;
  lastSeenTakAt: number | null;
}

/**
 * Where a page starts: after the row with this sort value (absent for the callsign order) and
 * callsign, in the page's order.
 */
export interface MemberTableCursor {
  value?: number | undefined;
  callsign: string;
}

export interface MemberTablePage {
  /** Lower-cased; a part of the callsign, the team or the role. */
  search?: string | undefined;
  sort: MemberSortKey;
  descending: boolean;
  after?: MemberTableCursor | undefined;
  limit: number;
}

/** A member without a valid key sorts after every expiry: Date's largest time. */
export const NO_KEY_SORTS_AS = 8_640_000_000_000_000;
/** A member never seen on TAK sorts before every time. */
export const NEVER_SEEN_SORTS_AS = 0;

// The newest expiry of the member's keys that are not revoked (expired ones included: the table
// shows them as expired). Server certificates carry a host name, never a member's key.
const KEY_EXPIRES_AT = sql<number | null>`(
  SELECT max(c.not_after) FROM issued_certificates c
  WHERE lower(c.callsign) = lower(m.callsign) AND c.revoked_at IS NULL AND c.purpose <> 'server')`;

// The same for every member at once, in one pass (the key expiry order needs all of them).
const KEY_EXPIRIES = sql`(
  SELECT lower(c.callsign) AS lc, max(c.not_after) AS expires FROM issued_certificates c
  WHERE c.revoked_at IS NULL AND c.purpose <> 'server' GROUP BY lower(c.callsign))`;

/**
 * The sort value of each order but the callsign's, over `members m`. The key expiry: on
 * PostgreSQL from `KEY_EXPIRIES k` joined in (one hash aggregate: 15 ms against 31 for a
 * subquery per member, EXPLAIN ANALYZE at 10,000 members on a loaded machine), on SQLite a
 * subquery per member (its index lookups beat the join there: 5 ms against 22), each one seek
 * of migration 0014's partial index of member keys not revoked.
 */
function sortValue(
  sort: Exclude<MemberSortKey, 'callsign'>,
  postgres: boolean,
): RawBuilder<number> {
  switch (sort) {
    case 'key_expires_at':
      return sql<number>`coalesce(${postgres ? sql`k.expires` : KEY_EXPIRES_AT}, ${sql.lit(NO_KEY_SORTS_AS)})`;
    case 'last_seen_tak_at':
      return sql<number>`coalesce(m.last_seen_tak_at, ${sql.lit(NEVER_SEEN_SORTS_AS)})`;
    case 'enrolled_at':
      return sql<number>`m.created_at`;
  }
}

const IS_ADMIN = sql<number>`CASE WHEN EXISTS (SELECT 1 FROM member_roles r
  WHERE r.callsign = m.callsign AND r.role = 'admin') THEN 1 ELSE 0 END`;

interface RawRow {
  callsign: string;
  status: MemberStatus;
  tak_team: string;
  tak_role: string;
  created_at: number | string;
  last_seen_tak_at: number | string | null;
  key_expires_at: number | string | null;
  is_admin: number | string;
}

/** Everything the table shows of the members `m`. */
function rows(executor: Executor) {
  return executor.selectFrom('members as m').select([
    'm.callsign',
    'm.status',
    'm.tak_team',
    'm.tak_role',
    'm.created_at',
    'm.last_seen_tak_at',
    KEY_EXPIRES_AT.as('key_expires_at'),
    sql<number>`CASE WHEN EXISTS (SELECT 1 FROM member_roles r
        WHERE r.callsign = m.callsign AND r.role = 'admin') THEN 1 ELSE 0 END`.as('is_admin'),
  ]);
}

/** `%`, `_` and the escape itself matched as themselves in a LIKE pattern. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * One page of the members table; `limit` rows at most, in the page's order: ties, and the
 * callsign order, by callsign in the same direction. One query: the page's callsigns are chosen
 * first (reading only what the order and the search need), then the rest is read for those
 * alone.
 */
export async function listMemberTableRows(
  executor: Executor,
  page: MemberTablePage,
): Promise<MemberTableRow[]> {
  const { sort, descending, after, search } = page;
  const postgres = isPostgres(executor);
  const direction = sql.raw(descending ? 'DESC' : 'ASC');
  const beyond = sql.raw(descending ? '<' : '>');
  const conditions: RawBuilder<unknown>[] = [];
  if (search !== undefined) {
    const pattern = likeContaining(search);
    conditions.push(sql`(lower(m.callsign) LIKE ${pattern} ESCAPE '\\'
      OR lower(m.tak_team) LIKE ${pattern} ESCAPE '\\'
      OR lower(m.tak_role) LIKE ${pattern} ESCAPE '\\')`);
  }
  const where = (more: RawBuilder<unknown>[]) => {
    const all = [...conditions, ...more];
    return all.length === 0 ? sql`` : sql`WHERE ${sql.join(all, sql` AND `)}`;
  };
  let chosen: RawBuilder<unknown>;
  if (sort === 'callsign') {
    const from =
      after === undefined ? [] : [sql`lower(m.callsign) ${beyond} ${after.callsign.toLowerCase()}`];
    chosen = sql`SELECT m.callsign AS chosen, lower(m.callsign) AS lc, 0 AS v FROM members m
      ${where(from)} ORDER BY lower(m.callsign) ${direction} LIMIT ${page.limit}`;
  } else {
    // Each member's sort value, then the page after the cursor in that order.
    const value = sortValue(sort, postgres);
    const keys =
      postgres && sort === 'key_expires_at'
        ? sql`LEFT JOIN ${KEY_EXPIRIES} k ON k.lc = lower(m.callsign)`
        : sql``;
    const from =
      after === undefined
        ? sql``
        : sql`WHERE (s.v, s.lc) ${beyond} (${after.value ?? 0}, ${after.callsign.toLowerCase()})`;
    const valued = sql`SELECT m.callsign AS chosen, lower(m.callsign) AS lc, ${value} AS v
      FROM members m ${keys} ${where([])}`;
    chosen = sql`SELECT s.chosen, s.lc, s.v FROM (${valued}) s ${from}
      ORDER BY s.v ${direction}, s.lc ${direction} LIMIT ${page.limit}`;
  }
  const found = await sql<RawRow>`
    SELECT m.callsign, m.status, m.tak_team, m.tak_role, m.created_at, m.last_seen_tak_at,
      ${KEY_EXPIRES_AT} AS key_expires_at, ${IS_ADMIN} AS is_admin
    FROM (${chosen}) p JOIN members m ON m.callsign = p.chosen
    ORDER BY p.v ${direction}, p.lc ${direction}`.execute(executor);
  return found.rows.map(toRow);
}

/** One member's row of the members table (any state), or undefined for nobody. */
export async function findMemberTableRow(
  executor: Executor,
  callsign: string,
): Promise<MemberTableRow | undefined> {
  const row = (await rows(executor)
    .where(sql<boolean>`lower(m.callsign) = lower(${callsign})`)
    .executeTakeFirst()) as RawRow | undefined;
  return row && toRow(row);
}

/** The sort value `row` has in the order `sort` (what a cursor after it holds). */
export function sortValueOf(row: MemberTableRow, sort: MemberSortKey): number | undefined {
  switch (sort) {
    case 'callsign':
      return undefined;
    case 'key_expires_at':
      return row.keyExpiresAt ?? NO_KEY_SORTS_AS;
    case 'last_seen_tak_at':
      return row.lastSeenTakAt ?? NEVER_SEEN_SORTS_AS;
    case 'enrolled_at':
      return row.enrolledAt;
  }
}

const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));

function toRow(row: RawRow): MemberTableRow {
  return {
    callsign: row.callsign,
    admin: Number(row.is_admin) === 1,
    status: row.status,
    team: row.tak_team,
    role: row.tak_role,
    enrolledAt: Number(row.created_at),
    keyExpiresAt: numberOrNull(row.key_expires_at),
    lastSeenTakAt: numberOrNull(row.last_seen_tak_at),
  };
}

/**
 * The names of the groups each of `callsigns` belongs to (docs/directory.md), by lower-cased
 * callsign, in one query: the one place the members table reads groups from. The groups module
 * owns `member_groups`; a repository may read another module's table, never write it.
 * `member_groups` names the callsign as the members row has it.
 */
export async function groupsOfMembers(
  executor: Executor,
  callsigns: readonly string[],
): Promise<ReadonlyMap<string, readonly string[]>> {
  const groups = new Map<string, string[]>();
  if (callsigns.length === 0) return groups;
  const rows = await executor
    .selectFrom('member_groups')
    .select(['callsign', 'group_name'])
    .where('callsign', 'in', [...callsigns])
    .orderBy('group_name')
    .execute();
  for (const row of rows) {
    const key = row.callsign.toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), row.group_name]);
  }
  return groups;
}
