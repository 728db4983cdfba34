import type { Executor } from '../../db/transaction.js';
import type { MemberStatus } from '../../db/schema.js';

/**
 * The `tak_enrollment_tokens` table: one row per member, the token only as its hash. The login
 * reads the member's status and TAK preset with the token, in one query.
 */

export interface NewTakEnrollmentToken {
  /** As the member's record has it. */
  callsign: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
  madeBy: string | null;
}

/** A token found by its hash, with what a login needs to know about its member. */
export interface FoundTakEnrollmentToken {
  callsign: string;
  expiresAt: number;
  usedAt: number | null;
  memberStatus: MemberStatus;
  team: string;
  role: string;
  madeBy: string | null;
  memberIsAdmin: boolean;
}

/** Writes the member's token, replacing (and so voiding) whatever token they had. */
export async function replaceTakEnrollmentToken(
  executor: Executor,
  token: NewTakEnrollmentToken,
): Promise<void> {
  const values = {
    token_hash: token.tokenHash,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    created_by: token.createdBy,
    made_by: token.madeBy,
    used_at: null,
    client_uid: null,
    serial: null,
  };
  await executor
    .insertInto('tak_enrollment_tokens')
    .values({ callsign: token.callsign, ...values })
    .onConflict((conflict) => conflict.column('callsign').doUpdateSet(values))
    .execute();
}

/** A token found by its member's callsign: also its hash, to spend it by. */
export interface FoundTakEnrollmentTokenOf extends FoundTakEnrollmentToken {
  tokenHash: string;
}

/** The token with this hash, if any. */
export async function findTakEnrollmentToken(
  executor: Executor,
  tokenHash: string,
): Promise<FoundTakEnrollmentToken | undefined> {
  return findToken(executor, { column: 't.token_hash', value: tokenHash });
}

/** The member's token (each member has at most one), if any; the callsign as recorded. */
export async function findTakEnrollmentTokenOf(
  executor: Executor,
  callsign: string,
): Promise<FoundTakEnrollmentTokenOf | undefined> {
  return findToken(executor, { column: 't.callsign', value: callsign });
}

async function findToken(
  executor: Executor,
  by: { column: 't.token_hash' | 't.callsign'; value: string },
): Promise<FoundTakEnrollmentTokenOf | undefined> {
  const row = await executor
    .selectFrom('tak_enrollment_tokens as t')
    .innerJoin('members as m', 'm.callsign', 't.callsign')
    .select(['t.callsign', 't.token_hash', 't.expires_at', 't.used_at', 't.made_by', 'm.status'])
    .select(['m.tak_team', 'm.tak_role'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('member_roles as r')
            .select('r.role')
            .whereRef('r.callsign', '=', 'm.callsign')
            .where('r.role', '=', 'admin'),
        )
        .as('is_admin'),
    )
    .where(by.column, '=', by.value)
    .executeTakeFirst();
  return (
    row && {
      callsign: row.callsign,
      tokenHash: row.token_hash,
      expiresAt: row.expires_at,
      usedAt: row.used_at,
      memberStatus: row.status,
      team: row.tak_team,
      role: row.tak_role,
      madeBy: row.made_by,
      // SQLite answers 1 or 0, PostgreSQL true or false.
      memberIsAdmin: Boolean(row.is_admin),
    }
  );
}

/**
 * Spends the token on the certificate it signed: only while it is unspent and unexpired, so of
 * two requests with one token (on any instance) exactly one spends it. False when none did.
 */
export async function spendTakEnrollmentToken(
  executor: Executor,
  spend: { tokenHash: string; at: number; clientUid: string | null; serial: string },
): Promise<boolean> {
  const result = await executor
    .updateTable('tak_enrollment_tokens')
    .set({ used_at: spend.at, client_uid: spend.clientUid, serial: spend.serial })
    .where('token_hash', '=', spend.tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', spend.at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
