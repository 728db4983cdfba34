import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Renewal codes (an admin's single-use code that signs a member in again after their key
// expired) are login codes of a third kind. The kind check names the kinds; PostgreSQL replaces
// the constraint in place, SQLite (whose checks are part of the table) rebuilds the table with the
// same columns and the new check. No row changes shape, so backups need no upgrade.

const KINDS_BEFORE = ['admin', 'exchange'] as const;
const KINDS_AFTER = ['admin', 'exchange', 'renewal'] as const;
const CHECK = 'login_codes_kind_check';

function kindCheck(kinds: readonly string[]) {
  return sql`kind in (${sql.join(kinds.map((kind) => sql.lit(kind)))})`;
}

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

async function rebuildSqlite(db: Kysely<unknown>, kinds: readonly string[]): Promise<void> {
  await db.schema
    .createTable('login_codes_next')
    .addColumn('code_hash', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('subject_callsign', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addCheckConstraint(CHECK, kindCheck(kinds))
    .execute();
  const columns = sql.raw('code_hash, kind, subject_callsign, created_at, expires_at, used_at');
  await sql`insert into login_codes_next (${columns}) select ${columns} from login_codes`.execute(
    db,
  );
  await db.schema.dropTable('login_codes').execute();
  await db.schema.alterTable('login_codes_next').renameTo('login_codes').execute();
}

async function allowKinds(db: Kysely<unknown>, kinds: readonly string[]): Promise<void> {
  if (!isPostgres(db)) {
    await rebuildSqlite(db, kinds);
    return;
  }
  await db.schema.alterTable('login_codes').dropConstraint(CHECK).execute();
  await db.schema.alterTable('login_codes').addCheckConstraint(CHECK, kindCheck(kinds)).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await allowKinds(db, KINDS_AFTER);
}

/** Renewal codes have no older kind to become: they are dropped. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from login_codes where kind = 'renewal'`.execute(db);
  await allowKinds(db, KINDS_BEFORE);
}
