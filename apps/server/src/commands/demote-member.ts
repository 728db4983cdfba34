import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Actor } from '../modules/auth/actor.js';
import { deactivateInviteCodesOf } from '../modules/invites/service.js';
import { takeAdminRole } from '../modules/people/service.js';

/**
 * An admin takes the admin role from a member (POST enrollment/demote): the people module's rules
 * and role change (`takeAdminRole`: 404 not an active member, 400 not admin, 409 self or last
 * admin), then the invite codes they created are deactivated (the invites module), in one
 * transaction.
 */
export function demoteMember(
  db: Kysely<Database>,
  actor: Actor,
  callsign: string,
  now: Date,
): Promise<string> {
  const at = now.getTime();
  return db.transaction().execute(async (trx) => {
    const target = await takeAdminRole(trx, actor, callsign, at);
    await deactivateInviteCodesOf(trx, target, { actor, reason: 'owner demoted', at });
    return `${target} is no longer an admin`;
  });
}
