import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { MembersTable, MemberStatus, Role } from '../../db/schema.js';
import { inTransaction, isPostgres, sqliteChangeFingerprint } from '../../db/transaction.js';
import type { Executor } from '../../db/transaction.js';
import { callsignIn } from './callsign.js';

export interface Member {
  /** As the member typed it. */
  callsign: string;
  status: MemberStatus;
  inviteCode: string | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
  roles: Role[];
}

export interface NewMember {
  callsign: string;
  status: MemberStatus;
  inviteCode: string | null;
  roles: readonly Role[];
  at: number;
  /** The member's TAK preset; the default one (the columns' defaults) when absent. */
  preset?: { team: string; role: string } | undefined;
}

// Every lookup by callsign is case-insensitive and matches the unique index on lower(callsign)
// (callsign.ts).

export async function findMemberByCallsign(
  executor: Executor,
  callsign: string,
): Promise<Member | undefined> {
  const row = await executor
    .selectFrom('members')
    .selectAll()
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .executeTakeFirst();
  if (row === undefined) {
    return undefined;
  }
  const roles = await executor
    .selectFrom('member_roles')
    .select('role')
    .where('callsign', '=', row.callsign)
    .orderBy('role')
    .execute();
  return toMember(
    row,
    roles.map((r) => r.role),
  );
}

/**
 * Inserts the member and their roles; false, with nothing written, when the callsign is taken in
 * any case. The unique index decides (ON CONFLICT DO NOTHING), so racing inserts get exactly one
 * winner and a caller's PostgreSQL transaction is not aborted by the conflict.
 */
export function insertMember(executor: Executor, member: NewMember): Promise<boolean> {
  return inTransaction(executor, async (trx) => {
    const inserted = await trx
      .insertInto('members')
      .values({
        callsign: member.callsign,
        status: member.status,
        invite_code: member.inviteCode,
        created_at: member.at,
        updated_at: member.at,
        revoked_at: member.status === 'revoked' ? member.at : null,
        ...(member.preset === undefined
          ? {}
          : { tak_team: member.preset.team, tak_role: member.preset.role }),
      })
      .onConflict((oc) => oc.doNothing())
      .returning('callsign')
      .executeTakeFirst();
    if (inserted === undefined) {
      return false;
    }
    if (member.roles.length > 0) {
      await trx
        .insertInto('member_roles')
        .values(member.roles.map((role) => ({ callsign: member.callsign, role })))
        .execute();
    }
    return true;
  });
}

/** A member's TAK preset as stored (team and role, not checked against ATAK's lists). */
export interface StoredPreset {
  /** As the member's record has it. */
  callsign: string;
  status: MemberStatus;
  team: string | null;
  role: string | null;
}

export async function findMemberPreset(
  executor: Executor,
  callsign: string,
): Promise<StoredPreset | undefined> {
  const row = await executor
    .selectFrom('members')
    .select(['callsign', 'status', 'tak_team', 'tak_role'])
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .executeTakeFirst();
  return (
    row && { callsign: row.callsign, status: row.status, team: row.tak_team, role: row.tak_role }
  );
}

/** Sets the preset of a member who is not revoked; false when there is none. */
export async function setMemberPreset(
  executor: Executor,
  callsign: string,
  preset: { team: string; role: string },
  at: number,
): Promise<boolean> {
  const result = await executor
    .updateTable('members')
    .set({ tak_team: preset.team, tak_role: preset.role, updated_at: at })
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .where('status', '!=', 'revoked')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Sets when a TAK Server last asked about one of the member's keys, unless a time at or after
 * `at` is recorded already; true when it was written. `updated_at` stays: this is evidence, not a change of the record.
 */
export async function setLastSeenOnTak(
  executor: Executor,
  callsign: string,
  at: number,
): Promise<boolean> {
  const result = await executor
    .updateTable('members')
    .set({ last_seen_tak_at: at })
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .where((eb) => eb.or([eb('last_seen_tak_at', 'is', null), eb('last_seen_tak_at', '<', at)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** When a TAK Server last asked about one of the member's keys; null: never (or no member). */
export async function findLastSeenOnTak(
  executor: Executor,
  callsign: string,
): Promise<number | null> {
  const row = await executor
    .selectFrom('members')
    .select('last_seen_tak_at')
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .executeTakeFirst();
  return row?.last_seen_tak_at ?? null;
}

/** How many active members a TAK Server asked about a key of at or after `since`. */
export async function countSeenOnTakSince(executor: Executor, since: number): Promise<number> {
  const row = await executor
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number | string>().as('seen'))
    .where('status', '=', 'active')
    .where('last_seen_tak_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.seen);
}

/** The callsigns among `callsigns` that a member holds in any state, lower-cased. */
export async function findTakenCallsigns(
  executor: Executor,
  callsigns: readonly string[],
): Promise<Set<string>> {
  if (callsigns.length === 0) return new Set();
  const rows = await executor
    .selectFrom('members')
    .select((eb) => eb.fn<string>('lower', ['members.callsign']).as('taken'))
    .where((eb) =>
      eb(
        eb.fn('lower', ['members.callsign']),
        'in',
        callsigns.map((callsign) => callsign.toLowerCase()),
      ),
    )
    .execute();
  return new Set(rows.map((row) => row.taken));
}

/**
 * Sets the status (and `revoked_at` with it). With `from`, only a member currently in one of
 * those states changes, so two racing decisions have one winner. True when a row changed.
 */
export async function setMemberStatus(
  executor: Executor,
  callsign: string,
  change: { status: MemberStatus; at: number; from?: readonly MemberStatus[] },
): Promise<boolean> {
  let query = executor
    .updateTable('members')
    .set({
      status: change.status,
      updated_at: change.at,
      revoked_at: change.status === 'revoked' ? change.at : null,
    })
    .where((eb) => callsignIn(eb, 'members.callsign', callsign));
  if (change.from !== undefined) {
    if (change.from.length === 0) {
      return false;
    }
    query = query.where('status', 'in', change.from);
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** False when the member is unknown or already has the role. */
export async function addMemberRole(
  executor: Executor,
  callsign: string,
  role: Role,
): Promise<boolean> {
  const rows = await executor
    .insertInto('member_roles')
    .columns(['callsign', 'role'])
    .expression((eb) =>
      eb
        .selectFrom('members')
        .select(['members.callsign', sql<Role>`cast(${role} as text)`.as('role')])
        .where((eb) => callsignIn(eb, 'members.callsign', callsign)),
    )
    .onConflict((oc) => oc.doNothing())
    .returning('role')
    .execute();
  return rows.length > 0;
}

/** False when the member is unknown or does not have the role. */
export async function removeMemberRole(
  executor: Executor,
  callsign: string,
  role: Role,
): Promise<boolean> {
  const result = await executor
    .deleteFrom('member_roles')
    .where('role', '=', role)
    .where('callsign', 'in', (eb) =>
      eb
        .selectFrom('members')
        .select('members.callsign')
        .where((eb) => callsignIn(eb, 'members.callsign', callsign)),
    )
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Every member, whatever their status (pending, active, revoked). */
/**
 * The member's live keys (unrevoked, unexpired at `now`) minted through another admin's code: the
 * keys that stay member keys when they are promoted (docs/api.md). Read beside the promotion.
 */
export async function findLiveKeysMadeByOthers(
  executor: Executor,
  callsign: string,
  now: number,
): Promise<{ serial: string; madeBy: string }[]> {
  const rows = await executor
    .selectFrom('issued_certificates')
    .select(['serial', 'made_by'])
    .where((eb) => callsignIn(eb, 'callsign', callsign))
    .where('purpose', '<>', 'server')
    .where('revoked_at', 'is', null)
    .where('not_after', '>', now)
    .where('made_by', 'is not', null)
    .where((eb) => eb.not(callsignIn(eb, 'made_by', callsign)))
    .orderBy('issued_at')
    .orderBy('serial')
    .execute();
  return rows.map((row) => ({ serial: row.serial, madeBy: row.made_by ?? '' }));
}

export async function countAllMembers(executor: Executor): Promise<number> {
  const row = await executor
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countActiveAdmins(executor: Executor): Promise<number> {
  const row = await executor
    .selectFrom('member_roles')
    .innerJoin('members', 'members.callsign', 'member_roles.callsign')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('member_roles.role', '=', 'admin')
    .where('members.status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Active members with their roles, ordered by callsign (case-insensitively), as the JSON array
 * people/list answers with (`[{"callsign":"Alpha","roles":["admin"]},...]`). The database writes
 * the JSON: one row instead of 20,000 to fetch, parse, validate and serialise again, which was
 * most of the list's time at 10,000 members (bench/RESULTS.md, section 5).
 */
export async function listActiveMembersJson(executor: Executor): Promise<string> {
  const query = isPostgres(executor)
    ? sql<{ list: string }>`
        SELECT '[' || coalesce(string_agg(
                 format('{"callsign":%s,"roles":%s}', to_json(m.callsign), coalesce(r.roles, '[]')),
                 ',' ORDER BY lower(m.callsign)), '') || ']' AS list
        FROM members m
        LEFT JOIN (SELECT callsign, json_agg(role ORDER BY role)::text AS roles
                   FROM member_roles GROUP BY callsign) r ON r.callsign = m.callsign
        WHERE m.status = 'active'`
    : sql<{ list: string }>`
        SELECT json_group_array(json_object('callsign', m.callsign,
                 'roles', json(coalesce(r.roles, '[]'))) ORDER BY lower(m.callsign)) AS list
        FROM members m
        LEFT JOIN (SELECT callsign, json_group_array(role ORDER BY role) AS roles
                   FROM member_roles GROUP BY callsign) r ON r.callsign = m.callsign
        WHERE m.status = 'active'`;
  const { rows } = await query.execute(executor);
  return rows[0]?.list ?? '[]';
}

/**
 * A fingerprint that changes whenever the member list would, far cheaper than the list.
 * PostgreSQL: how many active members and role rows there are and the sum of a 64-bit hash of
 * each (3.5 ms against 17–20 ms for the list at 10,000 members, bench/RESULTS.md section 5).
 * SQLite: the count of rows this connection changed (`total_changes()`) and the file's
 * `data_version`, which moves when another connection (the CLI) commits: any write at all.
 */
export async function memberListFingerprint(executor: Executor): Promise<string> {
  if (!isPostgres(executor)) return sqliteChangeFingerprint(executor);
  const { rows } = await sql<{ fingerprint: string }>`
    SELECT concat_ws(':',
      (SELECT count(*) FROM members WHERE status = 'active'),
      (SELECT coalesce(sum(hashtextextended(callsign, 0)), 0) FROM members WHERE status = 'active'),
      (SELECT count(*) FROM member_roles),
      (SELECT coalesce(sum(hashtextextended(callsign || ':' || role, 0)), 0) FROM member_roles)
    ) AS fingerprint`.execute(executor);
  return rows[0]?.fingerprint ?? '';
}

function toMember(row: Selectable<MembersTable>, roles: Role[]): Member {
  return {
    callsign: row.callsign,
    status: row.status,
    inviteCode: row.invite_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revokedAt: row.revoked_at,
    roles,
  };
}
