import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './connection.js';
import type { DatabaseHandle, Engine } from './connection.js';
import { migrateToLatest } from './migrate.js';

// Test support, not used by the service. Free of any test framework so API tests can use it too:
//   describe.each(testEngines())('$name', (engine) => { ... engine.createScratchDatabase() ... })

/** A fresh, empty database of one engine, private to whoever created it. */
export interface ScratchDatabase {
  engine: Engine;
  /** A private temporary directory (usable as the data directory); removed by drop(). */
  dataDir: string;
  /** For openDatabase(), or as DATABASE_URL and the SQLite file of the app under test. */
  options: { databaseUrl: string | undefined; sqliteFile: string };
  /** A new handle on the database; each call opens another (another pool on PostgreSQL). */
  open(): DatabaseHandle;
  /** open(), then every migration. */
  openMigrated(): Promise<DatabaseHandle>;
  /** Closes every handle open() made, then deletes the database and the directory. */
  drop(): Promise<void>;
}

export interface TestEngine {
  name: Engine;
  createScratchDatabase(): Promise<ScratchDatabase>;
}

/**
 * SQLite always; PostgreSQL when PORTAL_TEST_POSTGRES_URL is set (a database on a server where
 * that user may create databases, as scripts/with-postgres.sh provides). With
 * PORTAL_REQUIRE_POSTGRES=1 and no URL this throws, so a suite that must cover PostgreSQL fails
 * instead of quietly testing SQLite alone.
 */
export function testEngines(env: NodeJS.ProcessEnv = process.env): TestEngine[] {
  const adminUrl = env.PORTAL_TEST_POSTGRES_URL ?? '';
  if (adminUrl === '') {
    if (env.PORTAL_REQUIRE_POSTGRES === '1') {
      throw new Error(
        'PORTAL_REQUIRE_POSTGRES=1 but PORTAL_TEST_POSTGRES_URL is not set: run the tests through ' +
          'scripts/with-postgres.sh (it needs the PostgreSQL server package installed)',
      );
    }
    return [sqliteEngine];
  }
  return [sqliteEngine, postgresEngine(adminUrl)];
}

const sqliteEngine: TestEngine = {
  name: 'sqlite',
  async createScratchDatabase() {
    const dataDir = await makeDataDir();
    const options = { databaseUrl: undefined, sqliteFile: path.join(dataDir, 'portal.sqlite') };
    return scratch('sqlite', dataDir, options, () => Promise.resolve());
  },
};

function postgresEngine(adminUrl: string): TestEngine {
  return {
    name: 'postgres',
    async createScratchDatabase() {
      const name = `portal_t_${randomBytes(8).toString('hex')}`;
      await runAdminStatement(adminUrl, `CREATE DATABASE "${name}"`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const dataDir = await makeDataDir();
      const options = {
        databaseUrl: url.toString(),
        sqliteFile: path.join(dataDir, 'unused.sqlite'),
      };
      return scratch('postgres', dataDir, options, () =>
        // FORCE: a connection left open by a failed test must not keep the database alive.
        runAdminStatement(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      );
    },
  };
}

function scratch(
  engine: Engine,
  dataDir: string,
  options: ScratchDatabase['options'],
  dropDatabase: () => Promise<void>,
): ScratchDatabase {
  const opened = new Set<DatabaseHandle>();
  const open = (): DatabaseHandle => {
    const handle = openDatabase(options);
    let closing: Promise<void> | undefined;
    const tracked: DatabaseHandle = {
      ...handle,
      close() {
        opened.delete(tracked);
        closing ??= handle.close();
        return closing;
      },
    };
    opened.add(tracked);
    return tracked;
  };
  return {
    engine,
    dataDir,
    options,
    open,
    async openMigrated() {
      const handle = open();
      await migrateToLatest(handle);
      return handle;
    },
    async drop() {
      await Promise.all([...opened].map((handle) => handle.close()));
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function makeDataDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'portal-test-'));
}

async function runAdminStatement(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
