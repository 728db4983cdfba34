import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './schema.js';
import { hashCode } from '../modules/auth/codes.js';
import { findInviteCode, insertInviteCodes } from '../modules/invites/repository.js';
import * as inviteOptionsAndSlips from './migrations/0007-invite-options-and-slips.js';
import { NEW_INVITE_COLUMNS } from './migrations/0007-invite-options-and-slips.js';
import { MIGRATIONS, MigrationError, migrateToLatest } from './migrate.js';
import { KEY_EXPIRY_INDEX } from './migrations/0014-members-table.js';
import { testEngines } from './test-engines.testing.js';
import type { ScratchDatabase } from './test-engines.testing.js';

const EXPECTED_TABLES = [
  'audit_events',
  'ca_issuers',
  'enrollments',
  'failure_windows',
  'groups',
  'invite_codes',
  'issued_certificates',
  'login_codes',
  'member_groups',
  'member_roles',
  'members',
  'revocation_fetches',
  'signed_out_tokens',
  'tak_enrollment_tokens',
  'used_tokens',
];

/** The migrations up to and including `last`, as a portal of that version had them. */
function migrationsThrough(last: string): Record<string, Migration> {
  return Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name <= last));
}

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

  it('hash the approval codes an older portal stored in clear, once', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0002-failure-windows'));
    const at = Date.now();
    await sql`insert into invite_codes (code, created_at) values ('INVITE22', ${at})`.execute(
      handle.db,
    );
    for (const [callsign, code] of [
      ['Waiting1', 'ABCD2345'],
      ['Waiting2', 'efgh6789'],
    ]) {
      await sql`insert into members (callsign, status, invite_code, created_at, updated_at)
        values (${callsign}, 'pending', 'INVITE22', ${at}, ${at})`.execute(handle.db);
      await sql`insert into enrollments (callsign, invite_code, approval_code, state, created_at)
        values (${callsign}, 'INVITE22', ${code}, 0, ${at})`.execute(handle.db);
    }

    expect(await migrateToLatest(handle, migrationsThrough('0003-approval-code-hash'))).toEqual([
      '0003-approval-code-hash',
    ]);

    const rows = await handle.db
      .selectFrom('enrollments')
      .select(['callsign', 'approval_code_hash'])
      .orderBy('callsign')
      .execute();
    expect(rows).toEqual([
      { callsign: 'Waiting1', approval_code_hash: hashCode('ABCD2345') },
      { callsign: 'Waiting2', approval_code_hash: hashCode('EFGH6789') },
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/ABCD2345|EFGH6789/i);
  });

  it('make the audit log append-only (0008) and keep the events an older portal wrote', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0006-renewal-codes'));
    const insert = (id: string) =>
      sql`insert into audit_events (id, occurred_at, action, outcome)
        values (${id}, ${Date.now()}, 'sign-in', 'success')`.execute(handle.db);
    await insert('0190a1b2-0000-7000-8000-000000000001');
    // Before 0008 nothing stopped a change.
    await sql`update audit_events set actor = 'Before'`.execute(handle.db);

    // Other slices' migrations (0005…0007) run in between.
    expect(
      (await migrateToLatest(handle, migrationsThrough('0008-audit-append-only'))).at(-1),
    ).toBe('0008-audit-append-only');

    await insert('0190a1b2-0000-7000-8000-000000000002');
    await expect(sql`update audit_events set actor = 'After'`.execute(handle.db)).rejects.toThrow(
      /audit events are append-only: UPDATE refused/,
    );
    await expect(sql`delete from audit_events`.execute(handle.db)).rejects.toThrow(
      /audit events are append-only: DELETE refused/,
    );
    const rows = await handle.db
      .selectFrom('audit_events')
      .select(['id', 'actor'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: '0190a1b2-0000-7000-8000-000000000001', actor: 'Before' },
      { id: '0190a1b2-0000-7000-8000-000000000002', actor: null },
    ]);

    // Its down lifts the guard again.
    const migration = MIGRATIONS['0008-audit-append-only'];
    await migration?.down?.(handle.db);
    await sql`delete from audit_events`.execute(handle.db);
  });

  it('refuse an insert that would replace an audit event (0010), on every way of writing it', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle);
    const id = '0190a1b2-0000-7000-8000-000000000003';
    await sql`insert into audit_events (id, occurred_at, actor, action, outcome)
      values (${id}, 1, 'Original', 'sign-in', 'success')`.execute(handle.db);
    const rewrites =
      engine.name === 'sqlite'
        ? [
            sql`insert or replace into audit_events (id, occurred_at, actor, action, outcome)
              values (${id}, 2, 'Forger', 'sign-in', 'failure')`,
            sql`replace into audit_events (id, occurred_at, actor, action, outcome)
              values (${id}, 2, 'Forger', 'sign-in', 'failure')`,
          ]
        : [];
    rewrites.push(sql`insert into audit_events (id, occurred_at, actor, action, outcome)
      values (${id}, 2, 'Forger', 'sign-in', 'failure')
      on conflict (id) do update set actor = excluded.actor`);
    for (const rewrite of rewrites) {
      await expect(rewrite.execute(handle.db)).rejects.toThrow(/audit events are append-only/);
    }
    const rows = await handle.db.selectFrom('audit_events').select(['id', 'actor']).execute();
    expect(rows).toEqual([{ id, actor: 'Original' }]);
    // A new event still goes in.
    await sql`insert into audit_events (id, occurred_at, action, outcome)
      values ('0190a1b2-0000-7000-8000-000000000004', 3, 'sign-in', 'success')`.execute(handle.db);
  });

  it('rename the purposes of existing keys and give existing members the default TAK preset', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0003-approval-code-hash'));
    const at = Date.now();
    await sql`insert into members (callsign, status, created_at, updated_at)
      values ('Old1', 'active', ${at}, ${at})`.execute(handle.db);
    for (const [serial, purpose] of [
      ['01', 'member'],
      ['02', 'tak'],
      ['03', 'server'],
    ]) {
      await sql`insert into issued_certificates
        (serial, callsign, purpose, not_before, not_after, issued_at)
        values (${serial}, 'Old1', ${purpose}, ${at}, ${at + 1}, ${at})`.execute(handle.db);
    }

    expect(
      await migrateToLatest(handle, migrationsThrough('0004-key-purposes-and-presets')),
    ).toEqual(['0004-key-purposes-and-presets']);

    const certificates = await handle.db
      .selectFrom('issued_certificates')
      .select(['serial', 'purpose', 'client_uid', 'not_after'])
      .orderBy('serial')
      .execute();
    expect(certificates).toEqual([
      { serial: '01', purpose: 'browser', client_uid: null, not_after: at + 1 },
      { serial: '02', purpose: 'tak-package', client_uid: null, not_after: at + 1 },
      { serial: '03', purpose: 'server', client_uid: null, not_after: at + 1 },
    ]);
    const member = await handle.db
      .selectFrom('members')
      .select(['tak_team', 'tak_role'])
      .executeTakeFirstOrThrow();
    expect(member).toEqual({ tak_team: 'Cyan', tak_role: 'Team Member' });
    const insert = (serial: string, purpose: string) =>
      sql`insert into issued_certificates
        (serial, callsign, purpose, not_before, not_after, issued_at, client_uid)
        values (${serial}, 'Old1', ${purpose}, ${at}, ${at}, ${at}, 'ANDROID-1')`.execute(
        handle.db,
      );
    await insert('04', 'tak-enroll');
    await expect(insert('05', 'member')).rejects.toThrow();
  });

  it('give older invite codes no options, then store every option, and take them off again', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    const before = Object.fromEntries(
      Object.entries(MIGRATIONS).filter(([name]) => name < '0007-invite-options-and-slips'),
    );
    await migrateToLatest(handle, before);
    const at = Date.now();
    await sql`insert into invite_codes (code, created_at) values ('OLDCODE2', ${at})`.execute(
      handle.db,
    );

    expect(await migrateToLatest(handle)).toContain('0007-invite-options-and-slips');

    const options = [
      'auto_approve',
      'tak_team',
      'tak_role',
      'reserved_callsign',
      'batch_id',
    ] as const;
    const old = await handle.db
      .selectFrom('invite_codes')
      .select(options)
      .where('code', '=', 'OLDCODE2')
      .executeTakeFirstOrThrow();
    expect(old).toEqual(NEW_INVITE_COLUMNS);
    await insertInviteCodes(handle.db, [
      {
        code: 'SLIP2345',
        createdAt: at,
        ownerCallsign: null,
        autoApprove: true,
        team: 'Red',
        role: 'Medic',
        reservedCallsign: 'Alpha1',
        batchId: 'batch-1',
      },
    ]);
    const slip = await findInviteCode(handle.db, 'SLIP2345');
    expect(slip).toMatchObject({
      autoApprove: true,
      team: 'Red',
      role: 'Medic',
      reservedCallsign: 'Alpha1',
      batchId: 'batch-1',
    });
    await expect(
      sql`update invite_codes set auto_approve = 2 where code = 'SLIP2345'`.execute(handle.db),
    ).rejects.toThrow();

    const schemaOnly = handle.db as unknown as Kysely<unknown>;
    await inviteOptionsAndSlips.down(schemaOnly);
    const columns = (await handle.db.introspection.getTables())
      .find((table) => table.name === 'invite_codes')
      ?.columns.map((column) => column.name);
    expect(columns).not.toContain('auto_approve');
    expect(columns).not.toContain('batch_id');
    await inviteOptionsAndSlips.up(schemaOnly);
    expect(await findInviteCode(handle.db, 'OLDCODE2')).toMatchObject({ autoApprove: false });
  });

  it('add the TAK enrollment tokens: one per member, each hash once, nothing else touched', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0004-key-purposes-and-presets'));
    const at = Date.now();
    await sql`insert into members (callsign, status, created_at, updated_at)
      values ('Kept1', 'active', ${at}, ${at})`.execute(handle.db);

    expect(await migrateToLatest(handle, migrationsThrough('0005-tak-enrollment-tokens'))).toEqual([
      '0005-tak-enrollment-tokens',
    ]);

    expect(await handle.db.selectFrom('members').select('callsign').execute()).toEqual([
      { callsign: 'Kept1' },
    ]);
    const token = (callsign: string, hash: string) =>
      handle.db
        .insertInto('tak_enrollment_tokens')
        .values({
          callsign,
          token_hash: hash,
          created_at: at,
          expires_at: at + 1,
          created_by: 'Kept1',
        })
        .execute();
    await token('Kept1', 'a'.repeat(64));
    expect(
      await handle.db.selectFrom('tak_enrollment_tokens').selectAll().executeTakeFirstOrThrow(),
    ).toEqual({
      callsign: 'Kept1',
      token_hash: 'a'.repeat(64),
      created_at: at,
      expires_at: at + 1,
      created_by: 'Kept1',
      used_at: null,
      client_uid: null,
      serial: null,
    });
    await expect(token('Kept1', 'b'.repeat(64))).rejects.toThrow();
    await expect(token('Other1', 'a'.repeat(64))).rejects.toThrow();
  });

  it('let login codes be renewal codes, keeping the codes already there', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0005-tak-enrollment-tokens'));
    const at = Date.now();
    const insert = (hash: string, kind: string, subject: string | null) =>
      sql`insert into login_codes (code_hash, kind, subject_callsign, created_at, expires_at)
        values (${hash}, ${kind}, ${subject}, ${at}, ${at + 1000})`.execute(handle.db);
    await insert('a1', 'admin', null);
    await insert('e1', 'exchange', 'Boss1');
    await expect(insert('r0', 'renewal', 'Old1')).rejects.toThrow();

    expect(await migrateToLatest(handle, migrationsThrough('0006-renewal-codes'))).toEqual([
      '0006-renewal-codes',
    ]);

    await insert('r1', 'renewal', 'Old1');
    await expect(insert('x1', 'other', null)).rejects.toThrow();
    const codes = await handle.db
      .selectFrom('login_codes')
      .select(['code_hash', 'kind', 'subject_callsign', 'created_at', 'expires_at', 'used_at'])
      .orderBy('code_hash')
      .execute();
    expect(codes).toEqual([
      {
        code_hash: 'a1',
        kind: 'admin',
        subject_callsign: null,
        created_at: at,
        expires_at: at + 1000,
        used_at: null,
      },
      {
        code_hash: 'e1',
        kind: 'exchange',
        subject_callsign: 'Boss1',
        created_at: at,
        expires_at: at + 1000,
        used_at: null,
      },
      {
        code_hash: 'r1',
        kind: 'renewal',
        subject_callsign: 'Old1',
        created_at: at,
        expires_at: at + 1000,
        used_at: null,
      },
    ]);
    // The primary key is still there: a code hash is unique.
    await expect(insert('r1', 'renewal', 'Old1')).rejects.toThrow();
  });

  it('give older codes, tokens and keys no maker (0009), store one, and drop the columns again', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0008-audit-append-only'));
    const at = Date.now();
    await sql`insert into members (callsign, status, created_at, updated_at)
      values ('Old1', 'active', ${at}, ${at})`.execute(handle.db);
    await sql`insert into issued_certificates
      (serial, callsign, purpose, not_before, not_after, issued_at)
      values ('01', 'Old1', 'browser', ${at}, ${at + 1}, ${at})`.execute(handle.db);
    await sql`insert into login_codes (code_hash, kind, subject_callsign, created_at, expires_at)
      values ('r1', 'renewal', 'Old1', ${at}, ${at + 1})`.execute(handle.db);
    await sql`insert into tak_enrollment_tokens
      (callsign, token_hash, created_at, expires_at, created_by)
      values ('Old1', 't1', ${at}, ${at + 1}, 'Boss1')`.execute(handle.db);

    expect(await migrateToLatest(handle, migrationsThrough('0009-made-by'))).toEqual([
      '0009-made-by',
    ]);

    const makers = async () => [
      await handle.db.selectFrom('issued_certificates').select('made_by').execute(),
      await handle.db.selectFrom('login_codes').select('created_by').execute(),
      await handle.db.selectFrom('tak_enrollment_tokens').select('made_by').execute(),
    ];
    expect(await makers()).toEqual([
      [{ made_by: null }],
      [{ created_by: null }],
      [{ made_by: null }],
    ]);
    await handle.db
      .insertInto('issued_certificates')
      .values({
        serial: '02',
        callsign: 'Old1',
        purpose: 'browser',
        not_before: at,
        not_after: at + 1,
        issued_at: at,
        made_by: 'Boss1',
      })
      .execute();
    const made = await handle.db
      .selectFrom('issued_certificates')
      .select(['serial', 'made_by'])
      .orderBy('serial')
      .execute();
    expect(made).toEqual([
      { serial: '01', made_by: null },
      { serial: '02', made_by: 'Boss1' },
    ]);

    await MIGRATIONS['0009-made-by']?.down?.(handle.db);
    const tables = await handle.db.introspection.getTables();
    const columnsOf = (name: string) =>
      tables.find((table) => table.name === name)?.columns.map((column) => column.name) ?? [];
    expect(columnsOf('issued_certificates')).not.toContain('made_by');
    expect(columnsOf('login_codes')).not.toContain('created_by');
    expect(columnsOf('tak_enrollment_tokens')).not.toContain('made_by');
    expect(columnsOf('tak_enrollment_tokens')).toContain('created_by');
  });

  it('record which issuing CA signed each key (0013): 1 for the keys before it, and drop it', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0012-groups'));
    await sql`insert into issued_certificates
      (serial, callsign, purpose, not_before, not_after, issued_at)
      values ('0a01', 'Alpha', 'browser', 1, 2, 1)`.execute(handle.db);
    expect(await migrateToLatest(handle, migrationsThrough('0013-ca-rollover'))).toEqual([
      '0013-ca-rollover',
    ]);
    const generations = await sql<{ ca_generation: number }>`
      select ca_generation from issued_certificates`.execute(handle.db);
    expect(generations.rows.map((row) => row.ca_generation)).toEqual([1]);
    expect(await tableNames(handle.db)).toContain('ca_issuers');

    await MIGRATIONS['0013-ca-rollover']?.down?.(handle.db);
    expect(await tableNames(handle.db)).not.toContain('ca_issuers');
    const columns = await handle.db.introspection.getTables();
    expect(
      columns.find((table) => table.name === 'issued_certificates')?.columns.map((c) => c.name),
    ).not.toContain('ca_generation');
  });

  it('index the newest member key per callsign for the members table (0014), and drop it', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0012-groups'));
    expect(await migrateToLatest(handle, migrationsThrough('0014-members-table'))).toEqual([
      '0013-ca-rollover',
      '0014-members-table',
    ]);
    const indexes = async () =>
      handle.engine === 'postgres'
        ? (
            await sql<{ name: string }>`select indexname as name from pg_indexes
              where tablename = 'issued_certificates'`.execute(handle.db)
          ).rows.map((row) => row.name)
        : (
            await sql<{ name: string }>`select name from sqlite_master
              where type = 'index' and tbl_name = 'issued_certificates'`.execute(handle.db)
          ).rows.map((row) => row.name);
    expect(await indexes()).toContain(KEY_EXPIRY_INDEX);
    if (handle.engine === 'sqlite') {
      // The members table's key expiry is one seek of this index.
      const plan = await sql<{ detail: string }>`explain query plan
        select max(c.not_after) from issued_certificates c
        where lower(c.callsign) = lower('Alpha1') and c.revoked_at is null
          and c.purpose <> 'server'`.execute(handle.db);
      expect(plan.rows.map((row) => row.detail).join('\n')).toContain(KEY_EXPIRY_INDEX);
    }
    await MIGRATIONS['0014-members-table']?.down?.(handle.db);
    expect(await indexes()).not.toContain(KEY_EXPIRY_INDEX);
  });

  it('give older keys and members no presence (0011), store it, and drop it again', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0010-audit-no-replace'));
    const at = Date.now();
    await sql`insert into members (callsign, status, created_at, updated_at)
      values ('Old2', 'active', ${at}, ${at})`.execute(handle.db);
    await sql`insert into issued_certificates
      (serial, callsign, purpose, not_before, not_after, issued_at)
      values ('03', 'Old2', 'browser', ${at}, ${at + 1}, ${at})`.execute(handle.db);

    expect(await migrateToLatest(handle, migrationsThrough('0011-tak-presence'))).toEqual([
      '0011-tak-presence',
    ]);
    expect(
      await handle.db
        .selectFrom('issued_certificates')
        .select(['last_checked_at', 'last_checked_from'])
        .execute(),
    ).toEqual([{ last_checked_at: null, last_checked_from: null }]);
    expect(await handle.db.selectFrom('members').select('last_seen_tak_at').execute()).toEqual([
      { last_seen_tak_at: null },
    ]);
    await handle.db
      .insertInto('revocation_fetches')
      .values({ kind: 'crl', fetched_at: at, address: '10.0.0.5' })
      .execute();
    expect(await handle.db.selectFrom('revocation_fetches').selectAll().execute()).toEqual([
      { kind: 'crl', fetched_at: at, address: '10.0.0.5' },
    ]);

    await MIGRATIONS['0011-tak-presence']?.down?.(handle.db);
    const tables = await handle.db.introspection.getTables();
    const columnsOf = (name: string) =>
      tables.find((table) => table.name === name)?.columns.map((column) => column.name) ?? [];
    expect(tables.map((table) => table.name)).not.toContain('revocation_fetches');
    expect(columnsOf('issued_certificates')).not.toContain('last_checked_at');
    expect(columnsOf('members')).not.toContain('last_seen_tak_at');
  });

  it('keep older invites without groups (0012), hold groups by name in any case, and drop them again', async () => {
    scratch = await engine.createScratchDatabase();
    const handle = scratch.open();
    await migrateToLatest(handle, migrationsThrough('0011-tak-presence'));
    const at = Date.now();
    await sql`insert into invite_codes (code, created_at) values ('OLDCODE1', ${at})`.execute(
      handle.db,
    );
    expect(await migrateToLatest(handle, migrationsThrough('0012-groups'))).toEqual([
      '0012-groups',
    ]);
    expect(await handle.db.selectFrom('invite_codes').select('tak_groups').execute()).toEqual([
      { tak_groups: null },
    ]);
    const columns = async (table: string) =>
      (await handle.db.introspection.getTables())
        .find((found) => found.name === table)
        ?.columns.map((column) => column.name) ?? [];
    expect(await columns('issued_certificates')).toContain('sha256_fingerprint');
    await handle.db
      .insertInto('groups')
      .values({ name: 'Red', created_at: at, created_by: null })
      .execute();
    const again = await handle.db
      .insertInto('groups')
      .values({ name: 'RED', created_at: at, created_by: null })
      .onConflict((oc) => oc.doNothing())
      .returning('name')
      .execute();
    expect(again).toEqual([]);
    await MIGRATIONS['0012-groups']?.down?.(handle.db);
    const tables = await handle.db.introspection.getTables();
    expect(tables.map((table) => table.name)).not.toContain('groups');
    expect(tables.map((table) => table.name)).not.toContain('member_groups');
    const inviteColumns = tables
      .find((table) => table.name === 'invite_codes')
      ?.columns.map((column) => column.name);
    expect(inviteColumns).not.toContain('tak_groups');
    expect(await columns('issued_certificates')).not.toContain('sha256_fingerprint');
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
