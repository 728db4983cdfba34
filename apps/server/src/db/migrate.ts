import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './connection.js';
import * as initialSchema from './migrations/0001-initial-schema.js';
import * as failureWindows from './migrations/0002-failure-windows.js';
import * as approvalCodeHash from './migrations/0003-approval-code-hash.js';
import * as keyPurposesAndPresets from './migrations/0004-key-purposes-and-presets.js';
import * as takEnrollmentTokens from './migrations/0005-tak-enrollment-tokens.js';
import * as renewalCodes from './migrations/0006-renewal-codes.js';
import * as inviteOptionsAndSlips from './migrations/0007-invite-options-and-slips.js';
import * as auditAppendOnly from './migrations/0008-audit-append-only.js';
import * as madeBy from './migrations/0009-made-by.js';
import * as auditNoReplace from './migrations/0010-audit-no-replace.js';
import * as takPresence from './migrations/0011-tak-presence.js';
import * as groups from './migrations/0012-groups.js';
import * as caRollover from './migrations/0013-ca-rollover.js';
import * as membersTable from './migrations/0014-members-table.js';
import * as tokenSignOut from './migrations/0015-token-sign-out.js';
import type { Database } from './schema.js';
import { advisoryLockKey } from './transaction.js';

// Imported, not globbed from disk, so the compiled dist migrates exactly what was built.
// Names sort in the order they run.
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial-schema': initialSchema,
  '0002-failure-windows': failureWindows,
  '0003-approval-code-hash': approvalCodeHash,
  '0004-key-purposes-and-presets': keyPurposesAndPresets,
  '0005-tak-enrollment-tokens': takEnrollmentTokens,
  '0006-renewal-codes': renewalCodes,
  '0007-invite-options-and-slips': inviteOptionsAndSlips,
  '0008-audit-append-only': auditAppendOnly,
  '0009-made-by': madeBy,
  '0010-audit-no-replace': auditNoReplace,
  '0011-tak-presence': takPresence,
  '0012-groups': groups,
  '0013-ca-rollover': caRollover,
  '0014-members-table': membersTable,
  '0015-token-sign-out': tokenSignOut,
};

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * Brings the schema up to date and returns the names of the migrations that ran (none when it
 * already was). All pending migrations apply together or not at all, on both engines.
 * `migrations` is for tests; the service always runs MIGRATIONS.
 */
export function migrateToLatest(
  handle: DatabaseHandle,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve({ ...migrations }) };
  // One connection for the lock, the migrations and the unlock.
  return handle.db
    .connection()
    .execute((conn) =>
      handle.engine === 'postgres'
        ? migratePostgres(conn, provider)
        : migrateSqlite(conn, provider),
    );
}

/**
 * Kysely's PostgreSQL adapter already takes its own advisory lock, but only around running the
 * migrations, after it has created its bookkeeping tables unlocked. This session lock covers the
 * whole run, so instances starting together simply queue: the first migrates, the rest find
 * nothing to do.
 */
async function migratePostgres(
  conn: Kysely<Database>,
  provider: MigrationProvider,
): Promise<string[]> {
  const key = advisoryLockKey('migrations');
  await sql`select pg_advisory_lock(${key}::bigint)`.execute(conn);
  try {
    return await runMigrator(conn, provider);
  } finally {
    await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn);
  }
}

/**
 * Kysely runs SQLite migrations outside a transaction (its adapter reports no transactional DDL,
 * which SQLite in fact has), so a failure could leave half a schema. BEGIN IMMEDIATE makes the
 * run atomic and also holds off another process migrating the same file.
 */
async function migrateSqlite(
  conn: Kysely<Database>,
  provider: MigrationProvider,
): Promise<string[]> {
  await sql`begin immediate`.execute(conn);
  try {
    const ran = await runMigrator(conn, provider);
    await sql`commit`.execute(conn);
    return ran;
  } catch (error) {
    // SQLite has already rolled back after some errors; the migration error is the one to report.
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw error;
  }
}

async function runMigrator(conn: Kysely<Database>, provider: MigrationProvider): Promise<string[]> {
  const migrator = new Migrator({ db: conn, provider });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : JSON.stringify(error);
    throw new MigrationError(
      failed === undefined
        ? `Database migration failed: ${reason}`
        : `Database migration "${failed}" failed, nothing was applied: ${reason}`,
      { cause: error },
    );
  }
  return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
}
