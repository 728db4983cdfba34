import type { Executor } from '../../db/transaction.js';

/**
 * The names of the groups each of `callsigns` belongs to (product.md §15), by lower-cased
 * callsign, in one query: the one place the members table (GET admin/members) reads groups from.
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
