import type { Kysely } from 'kysely';

// Sign-out ends a bearer token on the server (POST token/sign-out, docs/api.md): its jti is kept
// here until the token would have expired, and every bearer use is checked against it
// (modules/firstuser/sign-out.ts). Entries past `expires_at` are pruned at each sign-out.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signed_out_tokens')
    .addColumn('jti', 'text', (col) => col.primaryKey())
    .addColumn('signed_out_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('signed_out_tokens_expires_at_idx')
    .on('signed_out_tokens')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('signed_out_tokens').execute();
}
