import type { Kysely } from 'kysely';
import {
  CODE_LENGTH,
  INVITE_REFUSAL_DETAIL,
  type AuditAction,
  type GroupMembership,
  type InviteRefusal,
} from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, ConflictError, countsAsFailure, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import { generateCode } from '../auth/codes.js';
import type { Actor } from '../auth/actor.js';
import { existingGroups } from '../groups/service.js';
import { isActiveAdmin } from '../people/service.js';
import {
  deactivateInviteCodesOwnedBy,
  deactivateUnusedCodesOfBatch,
  deleteInviteCode,
  findInviteCode,
  insertInviteCode,
  insertInviteCodes,
  inviteCodeState,
  listInviteCodes,
  recordInviteUse,
  setInviteCodeActive,
  setInviteCodeOwner,
  type InviteCode,
  type NewInviteCode,
} from './repository.js';

/** What an admin may give a new code (docs/api.md, "Onboarding a unit"); each is optional. */
export type InviteOptions = Pick<
  NewInviteCode,
  'label' | 'expiresAt' | 'maxUses' | 'autoApprove' | 'team' | 'role'
> & { groups?: readonly GroupMembership[] };

/**
 * The options given (not null, false or no groups), for the audit log; undefined when there were
 * none.
 */
function auditedOptions(options: InviteOptions): Record<string, unknown> | undefined {
  const given = Object.entries(options).filter(
    ([, value]) =>
      value !== null && value !== false && !(Array.isArray(value) && value.length === 0),
  );
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

export type { NewInviteCode };

/** Stores invite codes made elsewhere (a bulk batch's slips) in the caller's transaction. */
export function addInviteCodes(
  executor: Executor,
  codes: readonly NewInviteCode[],
): ReturnType<typeof insertInviteCodes> {
  return insertInviteCodes(executor, codes);
}

/** A fresh code collides with a stored one about once in 32^8 / stored codes: retry a few times. */
export const CREATE_ATTEMPTS = 5;

/** Admins managing invite codes (docs/api.md). Every change is audited in its transaction. */
export class InviteService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly newCode: (autoApprove: boolean) => string = (autoApprove) =>
      generateCode(autoApprove ? CODE_LENGTH.autoApprove : CODE_LENGTH.invite),
  ) {}

  /** Codes not deleted, newest first. */
  list(): Promise<InviteCode[]> {
    return listInviteCodes(this.db);
  }

  /**
   * A new active code owned by the actor, with the options given (none: a plain reusable code
   * that needs approval); the primary key refuses a code that exists. 400 for an expiry that is
   * not in the future.
   */
  async create(actor: Actor, options: InviteOptions = {}): Promise<string> {
    const expiresAt = options.expiresAt ?? null;
    if (expiresAt !== null && expiresAt <= this.now().getTime()) {
      throw new BadRequestError('expires_at must be in the future');
    }
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
      const code = this.newCode(options.autoApprove === true);
      const created = await this.db.transaction().execute(async (trx) => {
        const at = this.now().getTime();
        const groups = await existingGroups(trx, options.groups ?? []);
        const inserted = await insertInviteCode(trx, {
          ...options,
          groups,
          code,
          createdAt: at,
          ownerCallsign: actor.callsign,
        });
        if (inserted) {
          await audit(trx, actor, 'invite.create', code, at, auditedOptions(options));
        }
        return inserted;
      });
      if (created) return code;
    }
    throw new Error(`no free invite code after ${CREATE_ATTEMPTS} attempts`);
  }

  /**
   * Activates or deactivates a code (idempotent); 404 unknown or deleted; 409 for activating a
   * voided bulk slip: its callsign's reservation ended with it, so it stays void. Activating a code whose
   * owner is no longer an active admin (revoked or demoted, which deactivated it) makes the
   * activating admin its owner: an auto-approving code then approves in their name, never in the
   * name of someone who lost the power to approve. Returns the owner it took over from, if so.
   */
  async setActive(
    actor: Actor,
    code: string,
    active: boolean,
  ): Promise<{ ownerTransferredFrom?: string | null }> {
    return this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      const outcome = await setInviteCodeActive(trx, code, active, at);
      if (outcome === 'unknown') throw new NotFoundError('No such invite code');
      if (outcome === 'voided-slip') {
        throw new ConflictError(
          'This is a voided bulk slip: it cannot be activated again; make a new slip for its callsign (enrollment/bulk)',
        );
      }
      const previous = (await findInviteCode(trx, code))?.ownerCallsign ?? null;
      const takeOver = active && (previous === null || !(await isActiveAdmin(trx, previous)));
      if (takeOver) await setInviteCodeOwner(trx, code, actor.callsign);
      const transfer = takeOver ? { owner_transferred_from: previous } : undefined;
      await audit(trx, actor, active ? 'invite.activate' : 'invite.deactivate', code, at, transfer);
      return takeOver ? { ownerTransferredFrom: previous } : {};
    });
  }

  /** Soft-deletes a code and returns it as stored; 404 unknown or deleted already. */
  async delete(actor: Actor, code: string): Promise<string> {
    const stored = code.toUpperCase();
    await this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      if (!(await deleteInviteCode(trx, stored, at))) {
        throw new NotFoundError('No such invite code');
      }
      await audit(trx, actor, 'invite.delete', stored, at);
    });
    return stored;
  }
}

/**
 * Deactivates the invite codes `owner` created, in the caller's transaction, each audited as
 * done by `actor` for `reason`: an admin who is revoked or demoted invites nobody any more.
 */
export async function deactivateInviteCodesOf(
  executor: Executor,
  owner: string,
  change: { actor: Actor; reason: string; at: number },
): Promise<string[]> {
  const codes = await deactivateInviteCodesOwnedBy(executor, owner, change.at);
  for (const code of codes) {
    await audit(executor, change.actor, 'invite.deactivate', code, change.at, {
      reason: change.reason,
    });
  }
  return codes;
}

/**
 * Deactivates the slips of a bulk batch nobody has used and that are still live, in the caller's
 * transaction (bulk's void); their codes, sorted. The bulk module audits the void.
 */
export function voidUnusedSlips(
  executor: Executor,
  batchId: string,
  at: number,
): Promise<string[]> {
  return deactivateUnusedCodesOfBatch(executor, batchId, at);
}

/**
 * The invite check at `at`: active only for a code that admits people now, with the callsign it
 * is for when it is a bulk slip (the only one it enrolls).
 */
export async function inviteCheck(
  executor: Executor,
  code: string,
  at: number,
): Promise<InviteCheck> {
  const invite = await findInviteCode(executor, code);
  const state = invite === undefined ? 'deleted' : inviteCodeState(invite, at);
  const active = state === 'usable';
  return {
    active,
    reservedCallsign: active ? (invite?.reservedCallsign ?? null) : null,
    refusal: state === 'usable' || state === 'deleted' ? null : state,
  };
}

/** The invite check's outcome; `refusal` says why a code that exists admits nobody now. */
export interface InviteCheck {
  active: boolean;
  reservedCallsign: string | null;
  refusal: InviteRefusal | null;
}

/**
 * Counts one enrollment against the invite code, in the caller's transaction: 404 unknown or
 * deleted, 400 not usable (deactivated, expired or used up), each a failed guess (countsAsFailure).
 * Returns the code as it stands after the use.
 */
export async function useInviteCode(
  executor: Executor,
  code: string,
  at: number,
): Promise<InviteCode> {
  const used = await recordInviteUse(executor, code, at);
  if (used !== undefined) return used;
  const invite = await findInviteCode(executor, code);
  const state = invite === undefined ? 'deleted' : inviteCodeState(invite, at);
  switch (state) {
    case 'deleted':
      throw countsAsFailure(new NotFoundError('Unknown invite code'));
    case 'deactivated':
    case 'expired':
    case 'used-up':
      throw countsAsFailure(new BadRequestError(INVITE_REFUSAL_DETAIL[state]));
    case 'usable':
      // Changed under us between the two statements; refuse rather than guess.
      throw countsAsFailure(new BadRequestError('Invite code not usable'));
  }
}

async function audit(
  executor: Executor,
  actor: Actor,
  action: AuditAction,
  code: string,
  at: number,
  detail?: unknown,
): Promise<void> {
  await appendAuditEvent(executor, {
    at,
    actor: actor.callsign,
    action,
    target: code.toUpperCase(),
    outcome: 'success',
    clientAddress: actor.clientAddress,
    ...(detail === undefined ? {} : { detail }),
  });
}
