import { afterAll, beforeAll, describe } from 'vitest';
import type { DatabaseHandle, Engine } from './connection.js';
import { testEngines, type ScratchDatabase, type TestEngine } from './test-engines.testing.js';

/** A migrated scratch database, filled in before the suite's tests run. */
export interface SuiteDatabase {
  engine: Engine;
  /** For a test that needs another database of the same engine. */
  createScratchDatabase: TestEngine['createScratchDatabase'];
  scratch: ScratchDatabase;
  handle: DatabaseHandle;
}

/**
 * Runs `body` once per engine (SQLite, and PostgreSQL when the test command provides it), each
 * time against a freshly migrated scratch database that is dropped afterwards.
 */
export function describeWithMigratedDatabase(
  title: string,
  body: (database: SuiteDatabase) => void,
): void {
  describe.each(testEngines())(`${title} on $name`, (engine) => {
    const database = {
      engine: engine.name,
      createScratchDatabase: () => engine.createScratchDatabase(),
    } as SuiteDatabase;
    beforeAll(async () => {
      database.scratch = await engine.createScratchDatabase();
      database.handle = await database.scratch.openMigrated();
    });
    afterAll(() => database.scratch.drop());
    body(database);
  });
}
