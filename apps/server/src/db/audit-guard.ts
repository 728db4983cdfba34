import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { isPostgres } from './transaction.js';

/**
 * Runs `work` with the append-only guard of audit_events (migration 0008) lifted, inside the
 * caller's transaction, and puts it back before the transaction commits: for restore --force,
 * which replaces every row of every table. Nothing else may use it.
 *
 * PostgreSQL disables the table's triggers for the transaction (the table's owner may). SQLite
 * cannot disable a trigger: its guard triggers are dropped and created again from their own SQL
 * as sqlite_master keeps it, so this needs no copy of their definition.
 */
export async function withAuditGuardLifted<T>(
  trx: Transaction<Database>,
  work: () => Promise<T>,
): Promise<T> {
  if (isPostgres(trx)) {
    await sql`alter table audit_events disable trigger user`.execute(trx);
    const result = await work();
    await sql`alter table audit_events enable trigger user`.execute(trx);
    return result;
  }
  const { rows: triggers } = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'audit_events'
  `.execute(trx);
  for (const trigger of triggers) {
    await sql`drop trigger ${sql.id(trigger.name)}`.execute(trx);
  }
  const result = await work();
  for (const trigger of triggers) await sql.raw(trigger.sql).execute(trx);
  return result;
}
