import path from 'node:path';
import os from 'node:os';
import { mkdtemp } from 'node:fs/promises';
import { sql } from 'kysely';
const dist = '/work/wt-members31/apps/server/dist';
const { openDatabase } = await import(`${dist}/db/connection.js`);
const { migrateToLatest } = await import(`${dist}/db/migrate.js`);
const { listMemberTableRows } = await import(`${dist}/modules/people/members-table-repository.js`);
const { seed } = await import('/work/wt-members31/bench/lib/seed.mjs');
const engine = process.argv[2];
const dir = await mkdtemp(path.join(os.tmpdir(), 'm31-'));
let url;
if (engine === 'postgres') {
  const { createPostgresDatabase } = await import('/work/wt-members31/bench/lib/postgres.mjs');
  url = await createPostgresDatabase(process.env.PORTAL_TEST_POSTGRES_URL, 'probe_m31');
}
const handle = openDatabase({ databaseUrl: url, sqliteFile: path.join(dir, 'p.db') });
await migrateToLatest(handle);
await seed(handle.db, { active: 10000, pending: 1000, revokedShare: 0.1, memberDetails: true });
if (process.env.PRE) await sql.raw(process.env.PRE).execute(handle.db);
if (engine === 'postgres') await sql`ANALYZE`.execute(handle.db);
const cases = [
  ['callsign', { sort: 'callsign', descending: false, limit: 51 }],
  ['q dark key', { search: 'dark', sort: 'key_expires_at', descending: false, limit: 51 }],
  ['q medic seen', { search: 'medic', sort: 'last_seen_tak_at', descending: false, limit: 51 }],
  ['-enrolled deep', { sort: 'enrolled_at', descending: true, limit: 51, after: { value: Date.now() - 60000 + 9000, callsign: 'M009000' } }],
  ['-key', { sort: 'key_expires_at', descending: true, limit: 51 }],
  ['-key deep', { sort: 'key_expires_at', descending: true, limit: 51, after: { value: Date.now() + 200*86400000, callsign: 'M005000' } }],
];
for (const [name, page] of cases) {
  const times = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    await listMemberTableRows(handle.db, page);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(engine, name, 'p50', times[30].toFixed(2), 'max', times[59].toFixed(2));
}
if (process.argv[3]) {
  const { rows } = await sql.raw(process.argv[3]).execute(handle.db);
  for (const r of rows) console.log(Object.values(r).join(' '));
}
await handle.db.destroy();
