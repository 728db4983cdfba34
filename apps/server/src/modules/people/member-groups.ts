import type { Executor } from '../../db/transaction.js';

/**
 * The groups each of `callsigns` belongs to (product.md §15), by lower-cased callsign: the one
 * place the members table (GET admin/members) reads groups from. The unit's groups (issue 29)
 * are built on another branch; until they are merged here there are none, so every member's
 * list is empty. On that merge this reads the groups table for `callsigns` in one query.
 */
export function groupsOfMembers(
  _executor: Executor,
  _callsigns: readonly string[],
): Promise<ReadonlyMap<string, readonly string[]>> {
  return Promise.resolve(new Map());
}
