import { createHash } from 'node:crypto';
import { PostgresAdapter, sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Where a repository runs its SQL: the database, or a caller's open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Runs `work` in the caller's transaction when `executor` is one, else in a new transaction, so a
 * repository function of several statements is atomic either way.
 */
export function inTransaction<T>(
  executor: Executor,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (executor.isTransaction) {
    return work(executor as Transaction<Database>);
  }
  return executor.transaction().execute(work);
}

/**
 * Serialises transactions that take the lock of the same `name` until they end: for rules that
 * read several rows and then write (e.g. "at least one admin remains"), which READ COMMITTED on
 * PostgreSQL would otherwise let two transactions break together. Holders of the `shared` lock
 * of a name run together and only wait for (and hold off) the exclusive one.
 *
 * PostgreSQL: a transaction-level advisory lock. SQLite needs nothing: the single connection
 * runs one transaction at a time in a process, and across processes a write transaction whose
 * snapshot went stale fails with SQLITE_BUSY instead of committing.
 */
export async function lockForTransaction(
  trx: Transaction<Database>,
  name: string,
  mode: 'exclusive' | 'shared' = 'exclusive',
): Promise<void> {
  if (!isPostgres(trx)) {
    return;
  }
  const key = advisoryLockKey(name);
  await (
    mode === 'shared'
      ? sql`select pg_advisory_xact_lock_shared(${key}::bigint)`
      : sql`select pg_advisory_xact_lock(${key}::bigint)`
  ).execute(trx);
}

/** A stable signed 64-bit key for `pg_advisory_*lock`, as a decimal string. */
export function advisoryLockKey(name: string): string {
  return createHash('sha256')
    .update(`callsign-portal:${name}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

/** True on PostgreSQL, false on SQLite: for the few queries whose SQL differs between them. */
/**
 * SQLite: a fingerprint of the whole database that moves with any write: the count of rows this
 * connection changed (`total_changes()`) and the file's `data_version`, which moves when another
 * connection (the CLI) commits. Cached answers keyed on it are rebuilt after any write at all.
 */
export async function sqliteChangeFingerprint(executor: Executor): Promise<string> {
  const { rows } = await sql<{ fingerprint: string }>`
    SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes() AS fingerprint`.execute(
    executor,
  );
  return rows[0]?.fingerprint ?? '';
}

export function isPostgres(executor: Executor): boolean {
  return executor.getExecutor().adapter instanceof PostgresAdapter;
}
