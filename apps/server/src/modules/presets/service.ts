import type { Kysely } from 'kysely';
import type { Preset } from '@callsign/contract';
import type { Database, MemberStatus } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { findStoredPreset, storePreset } from '../people/service.js';
import { presetOf } from './preset.js';

export interface MemberPreset {
  /** As the member's record has it. */
  callsign: string;
  status: MemberStatus;
  preset: Preset;
}

/**
 * A member's TAK preset, by callsign in any case. The preset is stored on the member's record
 * (the people module's table); this module reads it as ATAK's team and role.
 */
async function findMemberPreset(
  executor: Executor,
  callsign: string,
): Promise<MemberPreset | undefined> {
  const stored = await findStoredPreset(executor, callsign);
  return (
    stored && {
      callsign: stored.callsign,
      status: stored.status,
      preset: presetOf(stored.team, stored.role),
    }
  );
}

/**
 * Members' TAK presets (docs/api.md, "Onboarding a unit"): team colour and role, taken from the invite at
 * enrollment, changed by admins, written into every TAK package the member gets.
 */
export class PresetService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
  ) {}

  /** The preset of a member who is not revoked; 404 otherwise. */
  async get(callsign: string): Promise<MemberPreset> {
    const found = await findMemberPreset(this.db, callsign);
    if (found === undefined || found.status === 'revoked') {
      throw new NotFoundError(`No member ${callsign}`);
    }
    return found;
  }

  /** What the TAK packages of a member carry. */
  async presetFor(callsign: string): Promise<Preset> {
    return (await this.get(callsign)).preset;
  }

  /** Gives a member who is not revoked another preset, audited; 404 otherwise. */
  set(actor: Actor, callsign: string, preset: Preset): Promise<MemberPreset> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      const before = await findMemberPreset(trx, callsign);
      if (before === undefined || !(await storePreset(trx, callsign, preset, at))) {
        throw new NotFoundError(`No member ${callsign}`);
      }
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'member.preset',
        target: before.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { team: preset.team, role: preset.role, was: before.preset },
      });
      return { ...before, preset };
    });
  }
}
