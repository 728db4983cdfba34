import { PostgresAdapter, sql, type Kysely } from 'kysely';

// The audit log is append-only in the database itself, not only in the code: UPDATE and DELETE
// (and TRUNCATE on PostgreSQL) on audit_events fail with "audit events are append-only". Only
// restore --force lifts the guard, inside its own transaction (db/audit-guard.ts).
// Pages of the log are read newest first by (occurred_at, id): one index serves that order.

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create function audit_events_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit events are append-only: % refused', tg_op;
      end
    $$`.execute(db);
    await sql`create trigger audit_events_no_change before update or delete on audit_events
      for each row execute function audit_events_append_only()`.execute(db);
    await sql`create trigger audit_events_no_truncate before truncate on audit_events
      for each statement execute function audit_events_append_only()`.execute(db);
  } else {
    await sql`create trigger audit_events_no_update before update on audit_events
      begin select raise(abort, 'audit events are append-only: UPDATE refused'); end`.execute(db);
    await sql`create trigger audit_events_no_delete before delete on audit_events
      begin select raise(abort, 'audit events are append-only: DELETE refused'); end`.execute(db);
  }
  await db.schema
    .createIndex('audit_events_occurred_at_id_idx')
    .on('audit_events')
    .columns(['occurred_at', 'id'])
    .execute();
  await db.schema.dropIndex('audit_events_occurred_at_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('audit_events_occurred_at_idx')
    .on('audit_events')
    .column('occurred_at')
    .execute();
  await db.schema.dropIndex('audit_events_occurred_at_id_idx').execute();
  if (isPostgres(db)) {
    await sql`drop trigger audit_events_no_truncate on audit_events`.execute(db);
    await sql`drop trigger audit_events_no_change on audit_events`.execute(db);
    await sql`drop function audit_events_append_only()`.execute(db);
  } else {
    await sql`drop trigger audit_events_no_delete`.execute(db);
    await sql`drop trigger audit_events_no_update`.execute(db);
  }
}
