import type { Kysely } from 'kysely';

// Presence (docs/tak.md, "Who connected"): each OCSP request or CRL fetch is evidence that a TAK
// Server checked a key. Written at most once a minute per key (modules/certificates/presence.ts).
//
// - `issued_certificates.last_checked_at`, `last_checked_from`: when an OCSP request last asked
//   about the key, and from which address.
// - `members.last_seen_tak_at`: the newest of those over the member's keys.
// - `revocation_fetches`: per kind (`ocsp`, `crl`), the last request of any relying party and its
//   address: the TAK readiness card and the metrics read them.
//
// All nullable and null for what came before: a backup taken before this migration restores
// as it is.

export const PRESENCE_COLUMNS = [
  ['issued_certificates', 'last_checked_at', 'bigint'],
  ['issued_certificates', 'last_checked_from', 'text'],
  ['members', 'last_seen_tak_at', 'bigint'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column, type] of PRESENCE_COLUMNS) {
    await db.schema.alterTable(table).addColumn(column, type).execute();
  }
  await db.schema
    .createTable('revocation_fetches')
    .addColumn('kind', 'text', (col) => col.primaryKey())
    .addColumn('fetched_at', 'bigint', (col) => col.notNull())
    .addColumn('address', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('revocation_fetches').execute();
  for (const [table, column] of PRESENCE_COLUMNS) {
    await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
