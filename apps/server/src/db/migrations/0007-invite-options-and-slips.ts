import { sql, type Kysely } from 'kysely';

// Invites that onboard a whole unit:
//
// - `auto_approve` (0 or 1): an enrollment with the code is approved at once.
// - `tak_team`, `tak_role`: the TAK preset its members get (null: the default one).
// - `reserved_callsign`: a bulk slip enrolls this callsign only, and while the slip admits people
//   nobody else may take it (looked up case-insensitively, hence the index on lower()).
// - `batch_id`: the bulk call that made the slip.
//
// Label, expiry and use limit were there from the start.

export const NEW_INVITE_COLUMNS = {
  auto_approve: 0,
  tak_team: null,
  tak_role: null,
  reserved_callsign: null,
  batch_id: null,
} as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('invite_codes')
    .addColumn('auto_approve', 'integer', (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`auto_approve in (0, 1)`),
    )
    .execute();
  for (const column of ['tak_team', 'tak_role', 'reserved_callsign', 'batch_id']) {
    await db.schema.alterTable('invite_codes').addColumn(column, 'text').execute();
  }
  await db.schema
    .createIndex('invite_codes_reserved_callsign_lower_idx')
    .on('invite_codes')
    .expression(sql`lower(reserved_callsign)`)
    .where(sql.ref('reserved_callsign'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('invite_codes_batch_id_idx')
    .on('invite_codes')
    .column('batch_id')
    .where(sql.ref('batch_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('invite_codes_batch_id_idx').execute();
  await db.schema.dropIndex('invite_codes_reserved_callsign_lower_idx').execute();
  for (const column of ['batch_id', 'reserved_callsign', 'tak_role', 'tak_team', 'auto_approve']) {
    await db.schema.alterTable('invite_codes').dropColumn(column).execute();
  }
}

/** Gives the invite codes of a backup taken before this migration the values it gave them. */
export function upgradeBackupRows(
  tables: Record<string, Record<string, unknown>[]>,
): Record<string, Record<string, unknown>[]> {
  return {
    ...tables,
    invite_codes: (tables.invite_codes ?? []).map((row) => ({ ...NEW_INVITE_COLUMNS, ...row })),
  };
}
