import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { sql, type Transaction } from 'kysely';
import type { Config } from '../config.js';
import { CA_CHAIN_FILE, CA_FILES, readIfExists } from '../ca/ca-files.js';
import { withAuditGuardLifted } from '../db/audit-guard.js';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { MIGRATIONS, migrateToLatest } from '../db/migrate.js';
import { upgradeBackupRows as hashApprovalCodes } from '../db/migrations/0003-approval-code-hash.js';
import { upgradeBackupRows as renameKeyPurposes } from '../db/migrations/0004-key-purposes-and-presets.js';
import { upgradeBackupRows as addInviteOptions } from '../db/migrations/0007-invite-options-and-slips.js';
import type { Database } from '../db/schema.js';
import { appendAuditEvent } from '../modules/audit/service.js';
import { JWT_KEY_FILE } from '../modules/auth/token-service.js';

/**
 * `backup FILE` / `restore FILE` (docs/deployment.md): the database and the CA material together in
 * one zip archive, for SQLite and PostgreSQL alike.
 *
 *   manifest.json            format, version, engine, migrations, row counts
 *   database/{table}.json    every row of the table, as JSON
 *   ca/{file}                the CA certificates and keys and the JWT key, as they are on disk
 *
 * A backup reads every table inside one transaction (REPEATABLE READ on PostgreSQL, one read
 * transaction on SQLite in WAL mode), so it is consistent while the service keeps writing. The CA
 * files never change once made. The archive holds the CA keys: it is written with mode 0600.
 */

export const BACKUP_FORMAT = 'callsign-portal-backup';
export const BACKUP_VERSION = 1;

/** Every table, parents before children: the order rows are restored in (and deleted reversed). */
export const BACKUP_TABLES: readonly (keyof Database)[] = [
  'invite_codes',
  'members',
  'member_roles',
  'groups',
  'member_groups',
  'enrollments',
  'login_codes',
  'issued_certificates',
  'ca_issuers',
  'used_tokens',
  'signed_out_tokens',
  'audit_events',
  'failure_windows',
  'tak_enrollment_tokens',
  'revocation_fetches',
];

/** The files of the CA directory that a backup carries and a restore writes back. */
export const CA_BACKUP_FILES: readonly string[] = [...Object.values(CA_FILES), JWT_KEY_FILE];

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  engine: DatabaseHandle['engine'];
  migrations: string[];
  tables: Record<string, number>;
  caFiles: string[];
}

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

type Row = Record<string, unknown>;

/**
 * Migrations that changed what a row holds, with how they reshape an archive's rows: a backup
 * taken before one of them goes through it on restore, to fit the schema it is restored into.
 */
const ROW_UPGRADES: Readonly<
  Record<string, (tables: Record<string, Row[]>) => Record<string, Row[]>>
> = {
  '0003-approval-code-hash': hashApprovalCodes,
  '0004-key-purposes-and-presets': renameKeyPurposes,
  '0007-invite-options-and-slips': addInviteOptions,
};

function openConfigured(config: Config): DatabaseHandle {
  return openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
}

async function appliedMigrations(db: Transaction<Database>) {
  const { rows } = await sql<{
    name: string;
  }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * Every row of every table, read in one snapshot. A database an older portal left (before its
 * upgrade migrated it) lacks the newer tables: those are left out, and restore as empty.
 */
async function readSnapshot(handle: DatabaseHandle) {
  const existing = new Set((await handle.db.introspection.getTables()).map((table) => table.name));
  return handle.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      if (handle.engine === 'postgres') await sql`set transaction read only`.execute(trx);
      const migrations = await appliedMigrations(trx);
      const tables: Record<string, Row[]> = {};
      for (const table of BACKUP_TABLES.filter((name) => existing.has(name))) {
        const { rows } = await sql<Row>`select * from ${sql.table(table)}`.execute(trx);
        tables[table] = rows;
      }
      return { migrations, tables };
    });
}

async function writePrivately(file: string, data: Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, data, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Writes the archive, then records the backup in the audit log (after the snapshot, so the
 * archive does not hold its own record): an archive holds the CA keys, so who took one when is
 * worth knowing.
 */
export async function createBackup(config: Config, file: string): Promise<BackupManifest> {
  const handle = openConfigured(config);
  try {
    const manifest = await writeBackup(config, handle, file);
    await appendAuditEvent(handle.db, {
      at: Date.now(),
      actor: 'cli',
      action: 'backup.create',
      target: path.resolve(file),
      outcome: 'success',
      clientAddress: null,
      detail: { engine: manifest.engine, tables: manifest.tables },
    });
    return manifest;
  } finally {
    await handle.close();
  }
}

async function writeBackup(
  config: Config,
  handle: DatabaseHandle,
  file: string,
): Promise<BackupManifest> {
  const snapshot = await readSnapshot(handle);
  const entries: Zippable = {};
  const tables: Record<string, number> = {};
  for (const [table, rows] of Object.entries(snapshot.tables)) {
    entries[`database/${table}.json`] = strToU8(JSON.stringify(rows));
    tables[table] = rows.length;
  }
  const optional = await readIfExists(path.join(config.caDir, CA_CHAIN_FILE));
  if (optional !== undefined) entries[`ca/${CA_CHAIN_FILE}`] = strToU8(optional);
  for (const name of CA_BACKUP_FILES) {
    try {
      entries[`ca/${name}`] = await readFile(path.join(config.caDir, name));
    } catch (error) {
      throw new BackupError(
        `cannot read ${path.join(config.caDir, name)}: ${(error as Error).message}`,
      );
    }
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: new Date().toISOString(),
    engine: handle.engine,
    migrations: snapshot.migrations,
    tables,
    caFiles: [...CA_BACKUP_FILES, ...(optional === undefined ? [] : [CA_CHAIN_FILE])],
  };
  entries['manifest.json'] = strToU8(JSON.stringify(manifest, null, 2));
  await writePrivately(path.resolve(file), zipSync(entries, { level: 6 }));
  return manifest;
}

/** Reads and checks an archive: format, version, migrations this build knows, every entry. */
export async function readBackup(file: string) {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(await readFile(file));
  } catch (error) {
    throw new BackupError(`${file} is not a backup archive: ${(error as Error).message}`);
  }
  const manifestEntry = entries['manifest.json'];
  if (manifestEntry === undefined) throw new BackupError(`${file} has no manifest.json`);
  const manifest = JSON.parse(strFromU8(manifestEntry)) as Partial<BackupManifest>;
  if (manifest.format !== BACKUP_FORMAT) {
    throw new BackupError(`${file} is not a Callsign Portal backup`);
  }
  if (manifest.version !== BACKUP_VERSION) {
    throw new BackupError(
      `${file} has backup format version ${String(manifest.version)}; this portal reads version ${BACKUP_VERSION}`,
    );
  }
  const unknown = (manifest.migrations ?? []).filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) {
    throw new BackupError(
      `${file} comes from a newer portal (migrations ${unknown.join(', ')}); upgrade first`,
    );
  }
  let tables: Record<string, Row[]> = {};
  for (const table of BACKUP_TABLES) {
    const entry = entries[`database/${table}.json`];
    // A table the backup's (older) schema did not have yet restores as empty.
    tables[table] = entry === undefined ? [] : (JSON.parse(strFromU8(entry)) as Row[]);
  }
  for (const [migration, upgrade] of Object.entries(ROW_UPGRADES)) {
    if (!(manifest.migrations ?? []).includes(migration)) tables = upgrade(tables);
  }
  const caFiles: Record<string, Uint8Array> = {};
  for (const name of CA_BACKUP_FILES) {
    const entry = entries[`ca/${name}`];
    if (entry === undefined) throw new BackupError(`${file} lacks ca/${name}`);
    caFiles[name] = entry;
  }
  // Only an adopted intermediate has it (ca-files.ts).
  const chain = entries[`ca/${CA_CHAIN_FILE}`];
  if (chain !== undefined) caFiles[CA_CHAIN_FILE] = chain;
  return { manifest: manifest as BackupManifest, tables, caFiles };
}

async function countRows(trx: Transaction<Database>): Promise<number> {
  let total = 0;
  for (const table of BACKUP_TABLES) {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(table)}`.execute(trx);
    total += Number(rows[0]?.n ?? 0);
  }
  return total;
}

/** Differs from what is on disk (a file missing on disk does not differ: a fresh machine). */
async function caDiffers(caDir: string, caFiles: Record<string, Uint8Array>): Promise<boolean> {
  const present = new Set(await readdir(caDir).catch(() => [] as string[]));
  for (const [name, content] of Object.entries(caFiles)) {
    if (!present.has(name)) continue;
    if (!Buffer.from(content).equals(await readFile(path.join(caDir, name)))) return true;
  }
  return false;
}

const INSERT_BATCH = 200;

export interface RestoreOptions {
  /** Replace a database that holds rows, and CA files that differ. */
  force?: boolean;
}

/**
 * Puts a backup back: the schema brought up to date, then every row in one transaction, then
 * the CA files. Refuses a database that holds any row, or a CA directory with other keys, unless
 * forced. The restore is recorded in the log it puts back (`backup.restore`, in the same
 * transaction): after it, the log says the rows before it came from an archive. Run it with the
 * service stopped.
 */
export async function restoreBackup(
  config: Config,
  file: string,
  options: RestoreOptions = {},
): Promise<BackupManifest> {
  const { manifest, tables, caFiles } = await readBackup(path.resolve(file));
  const force = options.force === true;
  if (!force && (await caDiffers(config.caDir, caFiles))) {
    throw new BackupError(
      `${config.caDir} holds another CA than the backup; restore --force replaces it`,
    );
  }
  // The CA files are staged first and put in place only after the database committed.
  await mkdir(config.caDir, { recursive: true, mode: 0o700 });
  const staged: [string, string][] = [];
  for (const [name, content] of Object.entries(caFiles)) {
    const target = path.join(config.caDir, name);
    const temporary = `${target}.restore-${process.pid}`;
    await writeFile(temporary, content, { mode: name.endsWith('-key.pem') ? 0o600 : 0o644 });
    staged.push([temporary, target]);
  }
  const handle = openConfigured(config);
  try {
    await migrateToLatest(handle);
    await handle.db.transaction().execute(async (trx) => {
      const replacing = (await countRows(trx)) > 0;
      if (replacing) {
        if (!force) {
          throw new BackupError('the database is not empty; restore --force replaces its rows');
        }
        // The audit log refuses DELETE (migration 0008); a forced restore replaces it whole.
        await withAuditGuardLifted(trx, async () => {
          for (const table of [...BACKUP_TABLES].reverse()) {
            await trx.deleteFrom(table).execute();
          }
        });
      }
      for (const table of BACKUP_TABLES) {
        const rows = tables[table] ?? [];
        for (let start = 0; start < rows.length; start += INSERT_BATCH) {
          await trx
            .insertInto(table)
            .values(rows.slice(start, start + INSERT_BATCH))
            .execute();
        }
      }
      await appendAuditEvent(trx, {
        at: Date.now(),
        actor: 'cli',
        action: 'backup.restore',
        target: path.resolve(file),
        outcome: 'success',
        clientAddress: null,
        detail: { createdAt: manifest.createdAt, engine: manifest.engine, replaced: replacing },
      });
    });
  } catch (error) {
    await Promise.all(staged.map(([temporary]) => rm(temporary, { force: true })));
    throw error;
  } finally {
    await handle.close();
  }
  for (const [temporary, target] of staged) await rename(temporary, target);
  return manifest;
}
