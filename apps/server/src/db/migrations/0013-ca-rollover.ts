import type { Kysely } from 'kysely';

// CA rollover (docs/operations.md "Rolling the issuing CA over"):
//
// - `ca_issuers`: one row per issuing CA made by `ca rollover begin`, generation 2 upwards (the
//   first issuing CA is the one in the CA directory's files, generation 1). Its certificate and
//   its key (PKCS#8 PEM, encrypted with PORTAL_CA_PASSPHRASE when set, as on disk) live here so
//   that every instance sharing the database picks the new CA up without a file to copy. The
//   generation is the primary key: two `begin`s at once cannot both make generation n + 1, so
//   the row is the lock of "one rollover at a time". `renew_by`: the date members are asked to
//   renew their keys by (the banner's). `finished_at` null: the overlap is under
//   way (the CA before it still trusted); set: the CA before it is retired.
// - `issued_certificates.ca_generation`: which issuing CA signed the key; 1 for every key issued
//   before this migration (there was only the one), so a backup taken before it restores as it is.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ca_issuers')
    .addColumn('generation', 'integer', (col) => col.primaryKey())
    .addColumn('certificate_pem', 'text', (col) => col.notNull())
    .addColumn('key_pem', 'text', (col) => col.notNull())
    .addColumn('begun_at', 'bigint', (col) => col.notNull())
    .addColumn('begun_by', 'text', (col) => col.notNull())
    .addColumn('renew_by', 'bigint', (col) => col.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .alterTable('issued_certificates')
    .addColumn('ca_generation', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('issued_certificates').dropColumn('ca_generation').execute();
  await db.schema.dropTable('ca_issuers').execute();
}
