import type { ExpressionBuilder } from 'kysely';
import type { Preset } from '@callsign/contract';
import type { Database, MemberStatus } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { presetOf } from './preset.js';

function sameCallsign(callsign: string) {
  return (eb: ExpressionBuilder<Database, 'members'>) =>
    eb(eb.fn('lower', ['members.callsign']), '=', eb.fn('lower', [eb.val(callsign)]));
}

export interface MemberPreset {
  /** As the member's record has it. */
  callsign: string;
  status: MemberStatus;
  preset: Preset;
}

/** A member's TAK preset, by callsign in any case. */
export async function findMemberPreset(
  executor: Executor,
  callsign: string,
): Promise<MemberPreset | undefined> {
  const row = await executor
    .selectFrom('members')
    .select(['callsign', 'status', 'tak_team', 'tak_role'])
    .where(sameCallsign(callsign))
    .executeTakeFirst();
  return (
    row && {
      callsign: row.callsign,
      status: row.status,
      preset: presetOf(row.tak_team, row.tak_role),
    }
  );
}

/** Sets the preset of a member who is not revoked; false when there is none. */
export async function setMemberPreset(
  executor: Executor,
  callsign: string,
  preset: Preset,
  at: number,
): Promise<boolean> {
  const result = await executor
    .updateTable('members')
    .set({ tak_team: preset.team, tak_role: preset.role, updated_at: at })
    .where(sameCallsign(callsign))
    .where('status', '!=', 'revoked')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
