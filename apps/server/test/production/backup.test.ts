import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { sql, type Kysely, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, createInviteResponseSchema } from '@callsign/contract';
import { BACKUP_TABLES, readBackup } from '../../src/cli/backup.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import * as initialSchema from '../../src/db/migrations/0001-initial-schema.js';
import * as failureWindows from '../../src/db/migrations/0002-failure-windows.js';
import { hashCode } from '../../src/modules/auth/codes.js';
import { testEngines, type ScratchDatabase } from '../../src/db/test-engines.testing.js';
import { run } from '../support/processes.js';
import { REPO_ROOT, SERVER_DIST } from '../support/repo.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { startTestPortal, type MemberKey, type TestPortal } from '../support/test-portal.js';

// `backup FILE` and `restore FILE` of the built CLI, as an operator runs them, on each engine.
const CLI = path.join(SERVER_DIST, 'cli.js');

describe.each(testEngines())('backup and restore on $name', (engine) => {
  let source: ScratchDatabase;
  let target: ScratchDatabase;
  let portal: TestPortal;
  let admin: MemberKey;
  let workDir: string;
  let archive: string;
  let restoredDataDir: string;
  /** The target database right after the restore, but for its audit log. */
  let restoredSnapshot: string;

  /** The restores the target's audit log records, oldest first. */
  async function restoreEvents(db: Kysely<Database>) {
    const rows = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'backup.restore')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail ?? 'null') as unknown }));
  }

  const cli = (args: string[], databaseUrl: string | undefined, dataDir: string) =>
    run('node', [CLI, ...args], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl ?? '',
        PORTAL_DATA_DIR: dataDir,
        PORTAL_LOG_LEVEL: 'silent',
      },
    });
  const restore = (file: string, extra: string[] = []) =>
    cli(['restore', file, ...extra], target.options.databaseUrl, restoredDataDir);

  beforeAll(async () => {
    expect(existsSync(CLI), 'build the server first (npm run build)').toBe(true);
    source = await engine.createScratchDatabase();
    target = await engine.createScratchDatabase();
    portal = await startTestPortal({ env: { DATABASE_URL: source.options.databaseUrl ?? '' } });
    admin = await portal.addMember('Eagle1', { roles: ['admin'] });
    workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-backup-'));
    archive = path.join(workDir, 'portal-backup.zip');
    // The target's own directory: on SQLite its database file is portal.sqlite in there.
    restoredDataDir = target.dataDir;
  });

  afterAll(async () => {
    await portal.destroy();
    await source.drop();
    await target.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('takes a consistent backup while enrollments keep being written', async () => {
    const created = await portal.api('mtls', 'POST', apiPaths.createInvite, { key: admin });
    const { invite_code } = createInviteResponseSchema.parse(created.json());
    let enrolled = 0;
    const writer = { running: true };
    const writing = (async () => {
      while (writer.running) {
        const answer = await portal.api('public', 'POST', apiPaths.enroll, {
          json: { callsign: `Walker${enrolled}`, invite_code },
        });
        expect(answer.status).toBe(200);
        enrolled += 1;
      }
    })();
    while (enrolled < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = enrolled;
    const backup = await cli(['backup', archive], source.options.databaseUrl, portal.dataDir);
    const after = enrolled;
    while (enrolled < after + 3) await new Promise((resolve) => setTimeout(resolve, 20));
    writer.running = false;
    await writing;
    expect(backup.code, backup.stderr).toBe(0);
    expect((await stat(archive)).mode & 0o777).toBe(0o600);

    // Each enrollment is one transaction: invite use, member, enrollment, audit event. A
    // consistent snapshot holds all four of each and nothing half-written.
    const { manifest, tables } = await readBackup(archive);
    const enrollments = tables.enrollments ?? [];
    expect(enrollments.length).toBeGreaterThanOrEqual(before);
    expect(enrollments.length).toBeLessThan(enrolled);
    const pending = (tables.members ?? []).filter((row) => row.status === 'pending');
    expect(pending).toHaveLength(enrollments.length);
    const uses = (tables.invite_codes ?? []).find((row) => row.code === invite_code)?.use_count;
    expect(Number(uses)).toBe(enrollments.length);
    const created_events = (tables.audit_events ?? []).filter(
      (row) => row.action === 'enrollment.create',
    );
    expect(created_events).toHaveLength(enrollments.length);
    expect(manifest).toMatchObject({ version: 1, engine: engine.name });
  });

  it('restores database and CA into an empty place: the old key still works there', async () => {
    const restored = await restore(archive);
    expect(restored.code, restored.stderr).toBe(0);
    const { tables } = await readBackup(archive);
    const handle = target.open();
    restoredSnapshot = await snapshotTables(handle.db, { except: ['audit_events'] });
    const snapshot = JSON.parse(await snapshotTables(handle.db)) as Record<string, string[]>;
    for (const table of BACKUP_TABLES) {
      // The audit log holds one event more: this restore's own.
      const more = table === 'audit_events' ? 1 : 0;
      if (table in snapshot)
        expect(snapshot[table], table).toHaveLength((tables[table]?.length ?? -1) + more);
    }
    const { manifest } = await readBackup(archive);
    expect(await restoreEvents(handle.db)).toMatchObject([
      {
        actor: 'cli',
        target: archive,
        outcome: 'success',
        detail: { createdAt: manifest.createdAt, engine: engine.name, replaced: false },
      },
    ]);
    await handle.close();
    for (const file of ['root-ca-key.pem', 'issuing-ca-key.pem', 'jwt-es256-key.pem']) {
      const mode = (await stat(path.join(restoredDataDir, 'ca', file))).mode & 0o777;
      expect(mode, file).toBe(0o600);
    }

    const copy = await startTestPortal({
      dataDir: restoredDataDir,
      env: { DATABASE_URL: target.options.databaseUrl ?? '' },
    });
    try {
      const known = await copy.api('mtls', 'GET', apiPaths.checkAuthAdmin, { key: admin });
      expect(known.status).toBe(200);
      const people = await copy.api('mtls', 'GET', apiPaths.enrollmentList, { key: admin });
      expect(people.text).toContain('Walker0');
    } finally {
      await copy.stop();
    }
  });

  it('refuses a database that is not empty unless forced', async () => {
    // The copy started above has written since (its server certificate, at least).
    const handle = target.open();
    const before = await snapshotTables(handle.db);
    expect(before).not.toBe(restoredSnapshot);
    const refused = await restore(archive);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the database is not empty');
    expect(await snapshotTables(handle.db)).toBe(before);
    const forced = await restore(archive, ['--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await snapshotTables(handle.db, { except: ['audit_events'] })).toBe(restoredSnapshot);
    // The log is the archive's again, with the forced restore as its one addition.
    expect(await restoreEvents(handle.db)).toMatchObject([
      { actor: 'cli', target: archive, detail: { replaced: true } },
    ]);
    await handle.close();
  });

  /**
   * A backup, by the built CLI, of a database an older portal left: only `migrations` applied,
   * filled by `fill`, with this portal's CA beside it.
   */
  async function olderArchive(
    name: string,
    migrations: Record<string, Migration>,
    fill: (db: Kysely<Database>) => Promise<void> = () => Promise.resolve(),
  ): Promise<string> {
    const older = await engine.createScratchDatabase();
    try {
      const handle = older.open();
      await migrateToLatest(handle, migrations);
      await fill(handle.db);
      await handle.close();
      await cp(path.join(portal.dataDir, 'ca'), path.join(older.dataDir, 'ca'), {
        recursive: true,
      });
      const file = path.join(workDir, name);
      const backup = await cli(['backup', file], older.options.databaseUrl, older.dataDir);
      expect(backup.code, backup.stderr).toBe(0);
      return file;
    } finally {
      await older.drop();
    }
  }

  it('backs up a database an older portal left, before the upgrade migrates it', async () => {
    const file = await olderArchive('older.zip', { '0001-initial-schema': initialSchema });
    const { manifest, tables } = await readBackup(file);
    expect(manifest.migrations).toEqual(['0001-initial-schema']);
    expect(manifest.tables).not.toHaveProperty('failure_windows');
    expect(tables.failure_windows).toEqual([]);
  });

  it('restores an archive taken before approval codes were hashed with the codes hashed', async () => {
    const file = await olderArchive(
      'before-hashing.zip',
      { '0001-initial-schema': initialSchema, '0002-failure-windows': failureWindows },
      async (db) => {
        const at = Date.now();
        await sql`insert into invite_codes (code, created_at) values ('OLDCODE2', ${at})`.execute(
          db,
        );
        await sql`insert into members (callsign, status, invite_code, created_at, updated_at)
          values ('Oldtimer1', 'pending', 'OLDCODE2', ${at}, ${at})`.execute(db);
        await sql`insert into enrollments (callsign, invite_code, approval_code, state, created_at)
          values ('Oldtimer1', 'OLDCODE2', 'APPR2345', 0, ${at})`.execute(db);
      },
    );
    expect(strFromU8(unzipSync(await readFile(file))['database/enrollments.json']!)).toContain(
      'APPR2345',
    );

    const fresh = await engine.createScratchDatabase();
    try {
      const restored = await cli(['restore', file], fresh.options.databaseUrl, fresh.dataDir);
      expect(restored.code, restored.stderr).toBe(0);
      const handle = fresh.open();
      const rows = await handle.db.selectFrom('enrollments').selectAll().execute();
      expect(rows).toMatchObject([
        { callsign: 'Oldtimer1', approval_code_hash: hashCode('APPR2345'), state: 0 },
      ]);
      expect(JSON.stringify(rows)).not.toContain('APPR2345');
      await handle.close();
    } finally {
      await fresh.drop();
    }
  });

  it('restores an archive taken before invite options as plain codes', async () => {
    const before = Object.fromEntries(
      Object.entries(MIGRATIONS).filter(([name]) => name < '0007-invite-options-and-slips'),
    );
    const file = await olderArchive('before-invite-options.zip', before, async (db) => {
      await sql`insert into invite_codes (code, created_at, max_uses) values ('OLDCODE3', ${Date.now()}, 5)`.execute(
        db,
      );
    });
    const fresh = await engine.createScratchDatabase();
    try {
      const restored = await cli(['restore', file], fresh.options.databaseUrl, fresh.dataDir);
      expect(restored.code, restored.stderr).toBe(0);
      const handle = fresh.open();
      const row = await handle.db
        .selectFrom('invite_codes')
        .selectAll()
        .where('code', '=', 'OLDCODE3')
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        max_uses: 5,
        auto_approve: 0,
        tak_team: null,
        tak_role: null,
        reserved_callsign: null,
        batch_id: null,
      });
      await handle.close();
    } finally {
      await fresh.drop();
    }
  });

  it('keeps no approval code in clear in an archive', async () => {
    const entry = unzipSync(await readFile(archive))['database/enrollments.json'];
    const enrollments = JSON.parse(strFromU8(entry!)) as Record<string, unknown>[];
    expect(enrollments.length).toBeGreaterThan(0);
    for (const row of enrollments) {
      expect(row).not.toHaveProperty('approval_code');
      expect(row.approval_code_hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('refuses an archive of another format version, and a file that is no backup', async () => {
    const entries = unzipSync(await readFile(archive));
    const manifest = JSON.parse(strFromU8(entries['manifest.json'] ?? strToU8('{}'))) as object;
    entries['manifest.json'] = strToU8(JSON.stringify({ ...manifest, version: 2 }));
    const future = path.join(workDir, 'future.zip');
    await writeFile(future, zipSync(entries));
    const refused = await restore(future, ['--force']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('backup format version 2');

    const junk = path.join(workDir, 'junk.zip');
    await writeFile(junk, 'not a zip');
    const notBackup = await restore(junk, ['--force']);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain('is not a backup archive');
  });
});
