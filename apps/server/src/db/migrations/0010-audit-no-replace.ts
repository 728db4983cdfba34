import { PostgresAdapter, sql, type Kysely } from 'kysely';

// SQLite's INSERT OR REPLACE (and REPLACE INTO) of an existing id deletes the old event without
// firing 0008's DELETE trigger (delete triggers of a REPLACE run only with recursive_triggers),
// so it rewrote an event in place. An insert of an id the log already holds is now refused
// before SQLite resolves the conflict. PostgreSQL needs nothing: its upsert fires 0008's UPDATE
// trigger.

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`create trigger audit_events_no_replace before insert on audit_events
    when exists (select 1 from audit_events where id = new.id)
    begin select raise(abort, 'audit events are append-only: REPLACE refused'); end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop trigger audit_events_no_replace`.execute(db);
}
