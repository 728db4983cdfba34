import type { Kysely } from 'kysely';
import { CODE_LENGTH, type GroupMembership, type Preset } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { uuidV7 } from '../../db/uuid-v7.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { generateCode } from '../auth/codes.js';
import { existingGroups } from '../groups/service.js';
import { lockReservations, unavailableCallsigns } from '../invites/reservations.js';
import {
  addInviteCodes,
  CREATE_ATTEMPTS,
  voidUnusedSlips,
  type NewInviteCode,
} from '../invites/service.js';
import { listBatchSlips, type SlipRecord } from './repository.js';
import { checkCallsigns, describeProblems, validCallsigns, type CheckedCallsign } from './slips.js';

const HOUR = 60 * 60 * 1000;

export interface BulkRequest {
  callsigns: readonly string[];
  preset: Preset;
  validHours: number;
  /** The groups each member of the batch gets at enrollment (docs/directory.md). */
  groups?: readonly GroupMembership[];
}

export interface Batch {
  batchId: string;
  expiresAt: number;
  slips: { callsign: string; code: string }[];
}

/**
 * Onboarding a whole unit (docs/api.md, "Onboarding a unit"): one single-use, auto-approving invite per callsign,
 * its callsign reserved, expiring together. A bulk call is all or nothing in one transaction.
 */
export class BulkService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    /** Callsigns nobody may take (`Config.reservedCallsigns`): a list counts them as taken. */
    private readonly reservedCallsigns: readonly string[],
    private readonly newCode: () => string = () => generateCode(CODE_LENGTH.autoApprove),
  ) {}

  /** The preview: each callsign with why it cannot have a slip (or null). Writes nothing. */
  async check(callsigns: readonly string[]): Promise<CheckedCallsign[]> {
    const at = this.now().getTime();
    return checkCallsigns(callsigns, await this.unavailable(this.db, callsigns, at));
  }

  /**
   * One slip per callsign, or (400, naming every callsign that cannot be used) none. Under the
   * reservation lock, so no callsign checked free here is taken before the slips are in.
   */
  create(actor: Actor, request: BulkRequest): Promise<Batch> {
    return this.db.transaction().execute(async (trx) => {
      await lockReservations(trx, 'reserving');
      const at = this.now().getTime();
      const { callsigns } = request;
      const checked = checkCallsigns(callsigns, await this.unavailable(trx, callsigns, at));
      if (checked.some((entry) => entry.problem !== null)) {
        throw new BadRequestError(describeProblems(checked));
      }
      const groups = await existingGroups(trx, request.groups ?? []);
      const batchId = uuidV7(at);
      const expiresAt = at + request.validHours * HOUR;
      const slip = (callsign: string, code: string): NewInviteCode => ({
        code,
        createdAt: at,
        ownerCallsign: actor.callsign,
        expiresAt,
        maxUses: 1,
        autoApprove: true,
        team: request.preset.team,
        role: request.preset.role,
        reservedCallsign: callsign,
        batchId,
        groups,
      });
      const codes = new Map<string, string>();
      for (let attempt = 0; codes.size < callsigns.length; attempt += 1) {
        if (attempt === CREATE_ATTEMPTS) {
          throw new Error(`no free invite codes after ${CREATE_ATTEMPTS} attempts`);
        }
        // Codes unlike each other and those kept; one that exists already is not written and
        // its callsign gets another in the next round.
        const picked = new Set(codes.values());
        const wanted = callsigns
          .filter((callsign) => !codes.has(callsign))
          .map((callsign) => slip(callsign, this.codeNotIn(picked)));
        const written = new Set(await addInviteCodes(trx, wanted));
        for (const row of wanted) {
          if (row.reservedCallsign && written.has(row.code))
            codes.set(row.reservedCallsign, row.code);
        }
      }
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'bulk.create',
        target: batchId,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: {
          slips: callsigns.length,
          ...request.preset,
          valid_hours: request.validHours,
          ...(groups.length === 0 ? {} : { groups }),
        },
      });
      return {
        batchId,
        expiresAt,
        slips: callsigns.map((callsign) => ({ callsign, code: codes.get(callsign) ?? '' })),
      };
    });
  }

  /** The slips of a batch as they are; 404 for an unknown batch. */
  async slips(batchId: string): Promise<SlipRecord[]> {
    const slips = await listBatchSlips(this.db, batchId);
    if (slips.length === 0) throw new NotFoundError('No such batch');
    return slips;
  }

  /**
   * Voids the slips of a batch that nobody has used (a use-once link is a credential): they
   * admit nobody and their callsigns are free again. Answers how many; 404 unknown batch.
   */
  void(actor: Actor, batchId: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      if ((await listBatchSlips(trx, batchId)).length === 0) {
        throw new NotFoundError('No such batch');
      }
      const voided = await voidUnusedSlips(trx, batchId, at);
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'bulk.void',
        target: batchId,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { voided: voided.length },
      });
      return voided.length;
    });
  }

  /** A new code not in `picked`, which it joins. */
  /** The valid callsigns of `callsigns` a member holds, a live slip reserves or nobody may take. */
  private async unavailable(
    executor: Executor,
    callsigns: readonly string[],
    at: number,
  ): Promise<Set<string>> {
    const unavailable = await unavailableCallsigns(executor, validCallsigns(callsigns), at);
    return new Set([...unavailable, ...this.reservedCallsigns]);
  }

  private codeNotIn(picked: Set<string>): string {
    let code = this.newCode();
    while (picked.has(code)) code = this.newCode();
    picked.add(code);
    return code;
  }
}
