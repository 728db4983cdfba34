import { sql } from 'kysely';
import type { Kysely } from 'kysely';

// Migrations are frozen history: they use Kysely<unknown>, not the current Database interface.
// Portable types only (text, integer, bigint), so the same file runs on SQLite and PostgreSQL.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invite_codes')
    .addColumn('code', 'text', (col) => col.primaryKey())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('owner_callsign', 'text')
    .addColumn('label', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('max_uses', 'integer')
    .addColumn('use_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('deactivated_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .addCheckConstraint('invite_codes_use_count_check', sql`use_count >= 0`)
    .execute();

  await db.schema
    .createTable('members')
    .addColumn('callsign', 'text', (col) => col.primaryKey())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('invite_code', 'text', (col) => col.references('invite_codes.code'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addCheckConstraint(
      'members_status_check',
      sql`status in ('pending', 'active', 'rejected', 'revoked')`,
    )
    .execute();
  // A callsign is taken in any state and any case: this index is what decides enrollment races.
  await db.schema
    .createIndex('members_callsign_lower_key')
    .on('members')
    .unique()
    .expression(sql`lower(callsign)`)
    .execute();

  await db.schema
    .createTable('member_roles')
    .addColumn('callsign', 'text', (col) =>
      col.notNull().references('members.callsign').onDelete('cascade'),
    )
    .addColumn('role', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('member_roles_pkey', ['callsign', 'role'])
    .execute();
  await db.schema.createIndex('member_roles_role_idx').on('member_roles').column('role').execute();

  await db.schema
    .createTable('enrollments')
    .addColumn('callsign', 'text', (col) => col.primaryKey().references('members.callsign'))
    .addColumn('invite_code', 'text', (col) => col.notNull().references('invite_codes.code'))
    .addColumn('approval_code', 'text', (col) => col.notNull())
    .addColumn('state', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('decided_at', 'bigint')
    .addColumn('decided_by', 'text')
    .addColumn('lock_reason', 'text')
    .addCheckConstraint('enrollments_state_check', sql`state in (0, 1, 2)`)
    .execute();
  await db.schema
    .createIndex('enrollments_state_created_idx')
    .on('enrollments')
    .columns(['state', 'created_at'])
    .execute();

  await db.schema
    .createTable('login_codes')
    .addColumn('code_hash', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('subject_callsign', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addCheckConstraint('login_codes_kind_check', sql`kind in ('admin', 'exchange')`)
    .execute();

  await db.schema
    .createTable('issued_certificates')
    .addColumn('serial', 'text', (col) => col.primaryKey())
    .addColumn('callsign', 'text', (col) => col.notNull())
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('not_before', 'bigint', (col) => col.notNull())
    .addColumn('not_after', 'bigint', (col) => col.notNull())
    .addColumn('issued_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revocation_reason', 'text')
    .addCheckConstraint(
      'issued_certificates_purpose_check',
      sql`purpose in ('member', 'tak', 'server')`,
    )
    .execute();
  await db.schema
    .createIndex('issued_certificates_callsign_lower_idx')
    .on('issued_certificates')
    .expression(sql`lower(callsign)`)
    .execute();
  await db.schema
    .createIndex('issued_certificates_revoked_at_idx')
    .on('issued_certificates')
    .column('revoked_at')
    .execute();

  await db.schema
    .createTable('used_tokens')
    .addColumn('jti', 'text', (col) => col.primaryKey())
    .addColumn('used_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('occurred_at', 'bigint', (col) => col.notNull())
    .addColumn('actor', 'text')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target', 'text')
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('client_address', 'text')
    .addColumn('detail', 'text')
    .execute();
  await db.schema
    .createIndex('audit_events_occurred_at_idx')
    .on('audit_events')
    .column('occurred_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'audit_events',
    'used_tokens',
    'issued_certificates',
    'login_codes',
    'enrollments',
    'member_roles',
    'members',
    'invite_codes',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
