import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './schema.js';
import { MIGRATIONS, MigrationError, migrateToLatest } from './migrate.js';
import { testEngines } from './test-engines.testing.js';
import type { ScratchDatabase } from './test-engines.testing.js';

const EXPECTED_TABLES = [
  'audit_events',
  'enrollments',
  'failure_windows',
  'invite_codes',
  'issued_certificates',
  'login_codes',
  'member_roles',
  'members',
  'used_tokens',
];

async function tableNames(db: Kysely<Database>): Promise<string[]> {
  const tables = await db.introspection.getTables();
  return tables.map((table) => table.name).sort();
}

describe.each(testEngines())('migrations on $name', (engine) => {
  let scratch: ScratchDatabase | undefined;

  afterEach(async () => {
    await scratch?.drop();
    scratch = undefined;
  });

  it('create every table on an empty database, and a second run does nothing', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();

    expect(await migrateToLatest(handle)).toEqual(Object.keys(MIGRATIONS));
    expect(await tableNames(handle.db)).toEqual(EXPECTED_TABLES);

    expect(await migrateToLatest(handle)).toEqual([]);
    expect(await tableNames(handle.db)).toEqual(EXPECTED_TABLES);
  });

  it('apply nothing when one migration fails, and say which', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    const broken: Migration = {
      async up(db) {
        await db.schema.createTable('half_done').addColumn('id', 'text').execute();
        await sql`select * from no_such_table`.execute(db);
      },
    };

    const attempt = migrateToLatest(handle, { ...MIGRATIONS, '9999-broken': broken });

    await expect(attempt).rejects.toThrow(MigrationError);
    await expect(attempt).rejects.toThrow(/"9999-broken" failed/);
    expect(await tableNames(handle.db)).toEqual([]);
    expect(await migrateToLatest(handle)).toEqual(Object.keys(MIGRATIONS));
  });

  it.runIf(engine.name === 'postgres')(
    'let instances starting together queue: one migrates, the others find nothing to do',
    async () => {
      scratch = await engine.createScratchDatabase();
      const instances = Array.from({ length: 4 }, () => scratch!.open());

      const runs = await Promise.all(instances.map((handle) => migrateToLatest(handle)));

      expect(runs.filter((ran) => ran.length > 0)).toEqual([Object.keys(MIGRATIONS)]);
      expect(await tableNames(instances[0]!.db)).toEqual(EXPECTED_TABLES);
    },
  );
});
