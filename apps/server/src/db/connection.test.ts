import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './connection.js';
import type { DatabaseHandle } from './connection.js';
import { testEngines } from './test-engines.testing.js';
import type { ScratchDatabase } from './test-engines.testing.js';

describe('openDatabase', () => {
  it.each(['mysql://root@localhost/portal', 'sqlite:./portal.sqlite', 'portal.sqlite'])(
    'rejects %s, naming DATABASE_URL',
    (databaseUrl) => {
      expect(() => openDatabase({ databaseUrl, sqliteFile: '/nonexistent/portal.sqlite' })).toThrow(
        /DATABASE_URL/,
      );
    },
  );

  it('does not repeat the rejected URL, which may hold a password', () => {
    const attempt = () =>
      openDatabase({ databaseUrl: 'mysql://root:s3cret@db/portal', sqliteFile: 'x' });

    expect(attempt).toThrow(/DATABASE_URL.*"mysql:"/);
    expect(attempt).not.toThrow(/s3cret/);
  });
});

describe.each(testEngines())('a $name connection', (engine) => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
    handle = scratch.open();
  });
  afterAll(() => scratch.drop());

  it('reports its engine', () => {
    expect(handle.engine).toBe(engine.name);
  });

  it('returns bigint values as JS numbers', async () => {
    const { rows } = await sql<{
      big: unknown;
    }>`select cast(1767225600123 as bigint) as big`.execute(handle.db);
    expect(rows[0]?.big).toBe(1767225600123);
  });

  it.runIf(engine.name === 'sqlite')('sets the SQLite pragmas', async () => {
    const pragma = async (name: string) => {
      const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(handle.db);
      // The result column is not always named after the pragma (busy_timeout answers `timeout`).
      return Object.values(rows[0] ?? {})[0];
    };
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(5000);
    // NORMAL
    expect(await pragma('synchronous')).toBe(1);
  });
});
