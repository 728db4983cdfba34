import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

// Approval codes are stored as a hash, like login codes (docs/api.md): a database or a backup
// no longer shows the code an enrollee holds. The code is upper-cased and trimmed first, as the
// comparison does. This migration keeps its own copy of the hash on purpose: what it wrote must
// not change if the application's hashing ever does.

function hashApprovalCode(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase(), 'utf8').digest('hex');
}

// A type alias, not an interface: withTables wants an index signature.
type EnrollmentCodes = {
  enrollments: { callsign: string; approval_code_hash: string };
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('enrollments')
    .renameColumn('approval_code', 'approval_code_hash')
    .execute();
  const enrollments = db.withTables<EnrollmentCodes>();
  const rows = await enrollments
    .selectFrom('enrollments')
    .select(['callsign', 'approval_code_hash'])
    .execute();
  for (const row of rows) {
    await enrollments
      .updateTable('enrollments')
      .set({ approval_code_hash: hashApprovalCode(row.approval_code_hash) })
      .where('callsign', '=', row.callsign)
      .execute();
  }
}

/** The codes cannot come back: pending enrollments keep their hash under the old name. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('enrollments')
    .renameColumn('approval_code_hash', 'approval_code')
    .execute();
}

/**
 * Brings `enrollments` rows of a backup taken before this migration to its shape, so that
 * restore can put an older archive into the current schema.
 */
export function upgradeBackupRows(
  tables: Record<string, Record<string, unknown>[]>,
): Record<string, Record<string, unknown>[]> {
  const enrollments = tables.enrollments ?? [];
  return {
    ...tables,
    enrollments: enrollments.map(({ approval_code: code, ...row }) => ({
      ...row,
      approval_code_hash: hashApprovalCode(String(code)),
    })),
  };
}
