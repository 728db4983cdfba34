import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/repository.js';
import { generateCode } from '../auth/codes.js';
import type { Actor } from '../auth/actor.js';
import {
  deactivateInviteCodesOwnedBy,
  deleteInviteCode,
  insertInviteCode,
  listInviteCodes,
  setInviteCodeActive,
  type InviteCode,
  type NewInviteCode,
} from './repository.js';

/** What an admin may give a new code (product.md §11); each is optional. */
export type InviteOptions = Pick<
  NewInviteCode,
  'label' | 'expiresAt' | 'maxUses' | 'autoApprove' | 'team' | 'role'
>;

/** The options given (not null or false), for the audit log; undefined when there were none. */
function auditedOptions(options: InviteOptions): Record<string, unknown> | undefined {
  const given = Object.entries(options).filter(([, value]) => value !== null && value !== false);
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

/** A fresh code collides with a stored one about once in 32^8 / stored codes: retry a few times. */
export const CREATE_ATTEMPTS = 5;

/** Admins managing invite codes (product.md §3, §4). Every change is audited in its transaction. */
export class InviteService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly newCode: () => string = () => generateCode(CODE_LENGTH.invite),
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
      const code = this.newCode();
      const created = await this.db.transaction().execute(async (trx) => {
        const at = this.now().getTime();
        const inserted = await insertInviteCode(trx, {
          ...options,
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

  /** Activates or deactivates a code (idempotent); 404 unknown or deleted. */
  async setActive(actor: Actor, code: string, active: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      if (!(await setInviteCodeActive(trx, code, active, at))) {
        throw new NotFoundError('No such invite code');
      }
      await audit(trx, actor, active ? 'invite.activate' : 'invite.deactivate', code, at);
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

async function audit(
  executor: Executor,
  actor: Actor,
  action: string,
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
