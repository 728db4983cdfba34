import type { GroupDirection } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

// Groups and a member's place in them (docs/directory.md). A group's name is one in any case (the
// unique index on lower(name)); lookups compare lower-cased. A member's rows name the callsign as
// the members row has it.

export interface Group {
  name: string;
  description: string;
}

export interface GroupMember {
  callsign: string;
  direction: GroupDirection;
}

export interface GroupWithMembers extends Group {
  members: GroupMember[];
}

/** A place in a group: its name (as stored) and the direction. */
export interface GroupPlace {
  name: string;
  direction: GroupDirection;
}

export interface MemberGroup extends Group {
  direction: GroupDirection;
}

/** Members who count as being in a group: not revoked and not rejected. */
const COUNTED_STATUSES = ['pending', 'active'] as const;

/** The group `name` names in any case. */
export async function findGroup(executor: Executor, name: string): Promise<Group | undefined> {
  return executor
    .selectFrom('groups')
    .select(['name', 'description'])
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
}

/** The groups of `names` that exist, keyed by the lower-cased name. */
export async function findGroups(
  executor: Executor,
  names: readonly string[],
): Promise<Map<string, Group>> {
  if (names.length === 0) return new Map();
  const rows = await executor
    .selectFrom('groups')
    .select(['name', 'description'])
    .where((eb) =>
      eb(
        eb.fn('lower', ['name']),
        'in',
        names.map((name) => name.toLowerCase()),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [row.name.toLowerCase(), row]));
}

/** Every group by name, with the members in it (pending or active), by callsign. */
export async function listGroups(executor: Executor): Promise<GroupWithMembers[]> {
  const groups = await executor
    .selectFrom('groups')
    .select(['name', 'description'])
    .orderBy('name')
    .execute();
  const memberships = await executor
    .selectFrom('member_groups')
    .innerJoin('members', 'members.callsign', 'member_groups.callsign')
    .select(['member_groups.group_name', 'member_groups.callsign', 'member_groups.direction'])
    .where('members.status', 'in', COUNTED_STATUSES)
    .orderBy('member_groups.callsign')
    .execute();
  const byGroup = new Map<string, GroupMember[]>();
  for (const row of memberships) {
    const list = byGroup.get(row.group_name) ?? [];
    list.push({ callsign: row.callsign, direction: row.direction });
    byGroup.set(row.group_name, list);
  }
  return groups.map((group) => ({ ...group, members: byGroup.get(group.name) ?? [] }));
}

/** Every group's name as stored. */
export async function groupNames(executor: Executor): Promise<string[]> {
  const rows = await executor.selectFrom('groups').select('name').execute();
  return rows.map((row) => row.name);
}

/** False, with nothing written, when a group of that name exists in any case. */
export async function insertGroup(
  executor: Executor,
  group: Group & { createdAt: number; createdBy: string | null },
): Promise<boolean> {
  const inserted = await executor
    .insertInto('groups')
    .values({
      name: group.name,
      description: group.description,
      created_at: group.createdAt,
      created_by: group.createdBy,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('name')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** How many members (pending or active) the group has. */
export async function countGroupMembers(executor: Executor, name: string): Promise<number> {
  const row = await executor
    .selectFrom('member_groups')
    .innerJoin('members', 'members.callsign', 'member_groups.callsign')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('member_groups.group_name', '=', name)
    .where('members.status', 'in', COUNTED_STATUSES)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes the group (`name` as stored) and every member's place in it. */
export async function deleteGroup(executor: Executor, name: string): Promise<void> {
  await executor.deleteFrom('member_groups').where('group_name', '=', name).execute();
  await executor.deleteFrom('groups').where('name', '=', name).execute();
}

/** The member's groups (`callsign` as stored), by name. */
export async function listMemberGroups(
  executor: Executor,
  callsign: string,
): Promise<MemberGroup[]> {
  return executor
    .selectFrom('member_groups')
    .innerJoin('groups', 'groups.name', 'member_groups.group_name')
    .select(['groups.name', 'groups.description', 'member_groups.direction'])
    .where('member_groups.callsign', '=', callsign)
    .orderBy('groups.name')
    .execute();
}

/** The member's groups become exactly `groups` (names as stored). */
export async function replaceMemberGroups(
  executor: Executor,
  callsign: string,
  groups: readonly GroupPlace[],
  at: number,
): Promise<void> {
  await executor.deleteFrom('member_groups').where('callsign', '=', callsign).execute();
  await insertMemberGroups(executor, callsign, groups, at);
}

/** Puts the member in `groups` (names as stored); a place they have is left as it is. */
export async function insertMemberGroups(
  executor: Executor,
  callsign: string,
  groups: readonly GroupPlace[],
  at: number,
): Promise<void> {
  if (groups.length === 0) return;
  await executor
    .insertInto('member_groups')
    .values(
      groups.map((group) => ({
        callsign,
        group_name: group.name,
        direction: group.direction,
        added_at: at,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** What the directory holds (docs/directory.md): active members, their admin role and groups. */
export interface DirectoryState {
  groups: Group[];
  members: { callsign: string; admin: boolean; groups: GroupPlace[] }[];
}

/** Every group and every active member with their groups, read in one go. */
export async function readDirectoryState(executor: Executor): Promise<DirectoryState> {
  const groups = await executor
    .selectFrom('groups')
    .select(['name', 'description'])
    .orderBy('name')
    .execute();
  const members = await executor
    .selectFrom('members')
    .select('callsign')
    .where('status', '=', 'active')
    .orderBy('callsign')
    .execute();
  const admins = await executor
    .selectFrom('member_roles')
    .innerJoin('members', 'members.callsign', 'member_roles.callsign')
    .select('member_roles.callsign')
    .where('member_roles.role', '=', 'admin')
    .where('members.status', '=', 'active')
    .execute();
  const memberships = await executor
    .selectFrom('member_groups')
    .innerJoin('members', 'members.callsign', 'member_groups.callsign')
    .select(['member_groups.callsign', 'member_groups.group_name', 'member_groups.direction'])
    .where('members.status', '=', 'active')
    .orderBy('member_groups.group_name')
    .execute();
  const adminSet = new Set(admins.map((row) => row.callsign));
  const byMember = new Map<string, GroupPlace[]>();
  for (const row of memberships) {
    const list = byMember.get(row.callsign) ?? [];
    list.push({ name: row.group_name, direction: row.direction });
    byMember.set(row.callsign, list);
  }
  return {
    groups,
    members: members.map(({ callsign }) => ({
      callsign,
      admin: adminSet.has(callsign),
      groups: byMember.get(callsign) ?? [],
    })),
  };
}

/**
 * The newest SHA-256 fingerprint of each active member's live keys (not revoked, not expired;
 * any purpose but server), by callsign; a member whose keys predate the fingerprints has none.
 */
export async function newestKeyFingerprints(
  executor: Executor,
  now: number,
): Promise<Map<string, string>> {
  const rows = await executor
    .selectFrom('issued_certificates')
    .innerJoin('members', 'members.callsign', 'issued_certificates.callsign')
    .select(['issued_certificates.callsign', 'issued_certificates.sha256_fingerprint'])
    .where('members.status', '=', 'active')
    .where('issued_certificates.purpose', '!=', 'server')
    .where('issued_certificates.revoked_at', 'is', null)
    .where('issued_certificates.not_after', '>', now)
    .where('issued_certificates.sha256_fingerprint', 'is not', null)
    .orderBy('issued_certificates.issued_at', 'asc')
    .execute();
  const newest = new Map<string, string>();
  for (const row of rows) {
    if (row.sha256_fingerprint !== null) newest.set(row.callsign, row.sha256_fingerprint);
  }
  return newest;
}
