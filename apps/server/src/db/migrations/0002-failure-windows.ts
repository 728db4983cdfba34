import type { Kysely } from 'kysely';

// The failure budget of each client address (http/failure-budget.ts), in the database so that
// every instance on one PostgreSQL counts the same failures (docs/api.md).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('failure_windows')
    .addColumn('address', 'text', (col) => col.primaryKey())
    .addColumn('started_at', 'bigint', (col) => col.notNull())
    .addColumn('failures', 'integer', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('failure_windows_started_at_idx')
    .on('failure_windows')
    .column('started_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('failure_windows').execute();
}
