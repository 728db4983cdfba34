import { sql, type Kysely } from 'kysely';

// Groups (docs/directory.md): TAK Server's groups, owned by the portal.
//
// - `groups`: one row per group; a name is one in any case (`groups_name_lower_key`).
// - `member_groups`: a member's place in a group with TAK Server's direction (`both`, `in`: may
//   send, `out`: receives only). The callsign as the members row has it, the group's name as
//   its row has it.
// - `invite_codes.tak_groups`: the groups an invite (or a bulk batch's slip) gives the member it
//   admits, as JSON `[{"name","direction"}]`; null: none.
// - `issued_certificates.sha256_fingerprint`: the certificate's SHA-256 fingerprint as TAK Server
//   writes it (ca/fingerprint.ts), for UserAuthenticationFile.xml; null for those issued before.
// A backup taken before this migration restores as it is.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text')
    .execute();
  await db.schema
    .createIndex('groups_name_lower_key')
    .on('groups')
    .unique()
    .expression(sql`lower(name)`)
    .execute();
  await db.schema
    .createTable('member_groups')
    .addColumn('callsign', 'text', (col) => col.notNull())
    .addColumn('group_name', 'text', (col) => col.notNull())
    .addColumn('direction', 'text', (col) => col.notNull().defaultTo('both'))
    .addColumn('added_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('member_groups_pkey', ['callsign', 'group_name'])
    .execute();
  await db.schema
    .createIndex('member_groups_group_idx')
    .on('member_groups')
    .column('group_name')
    .execute();
  await db.schema.alterTable('invite_codes').addColumn('tak_groups', 'text').execute();
  await db.schema
    .alterTable('issued_certificates')
    .addColumn('sha256_fingerprint', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('issued_certificates').dropColumn('sha256_fingerprint').execute();
  await db.schema.alterTable('invite_codes').dropColumn('tak_groups').execute();
  await db.schema.dropTable('member_groups').execute();
  await db.schema.dropTable('groups').execute();
}
