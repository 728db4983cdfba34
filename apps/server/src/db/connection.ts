import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** PostgreSQL's pool now: connections busy and queries waiting for one. Absent on SQLite. */
  poolUsage?: () => { inUse: number; waiting: number };
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://` or `postgresql://` selects PostgreSQL; absent or empty selects SQLite. */
  databaseUrl?: string | undefined;
  sqliteFile: string;
  /** An idle PostgreSQL connection failed (the pool replaces it); for logging. */
  onPoolError?: (error: Error) => void;
}

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  const url = options.databaseUrl ?? '';
  if (url === '') {
    return openSqlite(options.sqliteFile);
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    return openPostgres(url, options.onPoolError);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new Error(
    `DATABASE_URL must start with postgres:// or postgresql:// (or be unset for SQLite); got ${
      scheme === undefined ? 'a value without a scheme' : `the scheme "${scheme}:"`
    }`,
  );
}

function openSqlite(file: string): DatabaseHandle {
  const sqlite = new SqliteDatabase(file);
  // busy_timeout first, so switching to WAL waits for another process instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, engine: 'sqlite', close: () => db.destroy() };
}

// int8 (bigint, count(*)) as a JS number instead of a string: epoch milliseconds and counts fit
// exactly.
const getTypeParser: pg.CustomTypesConfig['getTypeParser'] = (oid, format) =>
  oid === pg.types.builtins.INT8 && format !== 'binary'
    ? (value: string) => Number(value)
    : (pg.types.getTypeParser(oid, format) as unknown);

function openPostgres(
  connectionString: string,
  onPoolError?: (error: Error) => void,
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    // Per pool rather than the global pg.types, so nothing else in the process is affected.
    types: { getTypeParser },
  });
  // Without a listener an idle client's connection error would crash the process.
  pool.on('error', (error) => onPoolError?.(error));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    poolUsage: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}
