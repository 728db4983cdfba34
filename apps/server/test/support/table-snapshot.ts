import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

export const ALL_TABLES: readonly (keyof Database)[] = [
  'members',
  'member_roles',
  'groups',
  'member_groups',
  'enrollments',
  'invite_codes',
  'login_codes',
  'issued_certificates',
  'ca_issuers',
  'used_tokens',
  'signed_out_tokens',
  'audit_events',
];

/**
 * Every row of every table (but those in `except`), in a stable order: equal snapshots before and
 * after a refused call prove that it wrote nothing.
 */
export async function snapshotTables(
  db: Kysely<Database>,
  options: { except?: readonly (keyof Database)[] } = {},
): Promise<string> {
  const tables: Record<string, string[]> = {};
  for (const table of ALL_TABLES) {
    if (options.except?.includes(table) === true) continue;
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(
      db,
    );
    tables[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return JSON.stringify(tables);
}
