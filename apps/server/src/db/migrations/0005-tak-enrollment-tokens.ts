import type { Kysely } from 'kysely';

// One-time tokens of the TAK certificate-enrollment protocol (modules/tak-enroll): a TAK client
// (ATAK, iTAK, a TAK library) logs in to the enrollment face with the member's callsign and this
// token, sends a CSR and gets the member's certificate. One row per member: a new token replaces
// (voids) the previous one. The token is stored only as a hash. Once it signed a certificate,
// `used_at`, the device's `client_uid` and the certificate's `serial` say so, and the same token
// still fetches the member's enrollment profile for a short while after `used_at`.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tak_enrollment_tokens')
    .addColumn('callsign', 'text', (col) => col.primaryKey())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('client_uid', 'text')
    .addColumn('serial', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tak_enrollment_tokens').execute();
}
