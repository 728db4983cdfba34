import type { Selectable } from 'kysely';
import type { LoginCodeKind, LoginCodesTable } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { callsignIn } from '../people/callsign.js';

// Codes are stored and looked up only by the hash the caller computes; never the code itself.

export interface LoginCode {
  codeHash: string;
  kind: LoginCodeKind;
  subjectCallsign: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  /** The admin who made a renewal code, who asked for an admin code; null for exchange codes. */
  createdBy: string | null;
}

export interface NewLoginCode {
  codeHash: string;
  kind: LoginCodeKind;
  subjectCallsign: string | null;
  createdAt: number;
  expiresAt: number;
  createdBy?: string;
}

export async function insertLoginCode(executor: Executor, code: NewLoginCode): Promise<void> {
  await executor
    .insertInto('login_codes')
    .values({
      code_hash: code.codeHash,
      kind: code.kind,
      subject_callsign: code.subjectCallsign,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
      created_by: code.createdBy ?? null,
    })
    .execute();
}

/**
 * Marks the code used and returns it, only if it exists, is unused and has not expired at `now`.
 * One conditional UPDATE: of any number of parallel attempts exactly one gets the row, the rest
 * get undefined.
 */
export async function consumeLoginCode(
  executor: Executor,
  codeHash: string,
  now: number,
): Promise<LoginCode | undefined> {
  const row = await executor
    .updateTable('login_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  return row && toLoginCode(row);
}

/** True for a code (of `kind`, when given) that exists, is unused and has not expired at `now`. */
export async function isLoginCodeUsable(
  executor: Executor,
  codeHash: string,
  now: number,
  kind?: LoginCodeKind,
): Promise<boolean> {
  const found = await findUsableLoginCode(executor, codeHash, now);
  return found !== undefined && (kind === undefined || found.kind === kind);
}

/** The code, if it exists, is unused and has not expired at `now`. */
export async function findUsableLoginCode(
  executor: Executor,
  codeHash: string,
  now: number,
): Promise<LoginCode | undefined> {
  const row = await executor
    .selectFrom('login_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && toLoginCode(row);
}

function toLoginCode(row: Selectable<LoginCodesTable>): LoginCode {
  return {
    codeHash: row.code_hash,
    kind: row.kind,
    subjectCallsign: row.subject_callsign,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    createdBy: row.created_by,
  };
}

/**
 * Removes the unused codes of `kind` that sign in `subjectCallsign` (any case): a new renewal
 * code replaces the one an admin made before. Returns how many there were.
 */
export async function deleteUnusedLoginCodes(
  executor: Executor,
  kind: LoginCodeKind,
  subjectCallsign: string,
): Promise<number> {
  const result = await executor
    .deleteFrom('login_codes')
    .where('kind', '=', kind)
    .where((eb) => callsignIn(eb, 'subject_callsign', subjectCallsign))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
