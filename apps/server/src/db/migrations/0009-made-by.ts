import type { Kysely } from 'kysely';

// Who made the code a key was minted through (docs/api.md, "No admin makes a key for another
// admin"): an admin's TAK enrollment token for a member, or a renewal code.
//
// - `login_codes.created_by`: the admin who made a renewal code (null for other codes).
// - `tak_enrollment_tokens.made_by`: the admin whose code the token rests on: the admin at an
//   enrollment station, or the one whose renewal code opened the member's session.
// - `issued_certificates.made_by`: that admin, on every key minted through such a code.
//
// All nullable and null for what came before: a backup taken before this migration restores
// as it is.

export const MADE_BY_COLUMNS = [
  ['login_codes', 'created_by'],
  ['tak_enrollment_tokens', 'made_by'],
  ['issued_certificates', 'made_by'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of MADE_BY_COLUMNS) {
    await db.schema.alterTable(table).addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of MADE_BY_COLUMNS) {
    await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
