import { sql, type Kysely } from 'kysely';

// Two things the TAK features build on:
//
// - A member's keys are named by what they are for: `browser` (the .pfx download, once `member`),
//   `tak-package` (a TAK settings package, once `tak`), `tak-enroll` (a certificate a TAK client
//   enrolled for with its own key), and `server`. A TAK client that enrolled says which device it
//   is (`client_uid`). The purpose check is part of the table on SQLite, so the table is rebuilt
//   (the same way on both engines): same columns, indexes and names.
// - Every member has a TAK preset: team colour and role, as ATAK names them, written into the TAK
//   packages and the enrollment profile. Existing members get ATAK's defaults.

const PURPOSE_RENAMES: Readonly<Record<string, string>> = { member: 'browser', tak: 'tak-package' };

export const DEFAULT_TAK_TEAM = 'Cyan';
export const DEFAULT_TAK_ROLE = 'Team Member';

async function createCertificatesTable(
  db: Kysely<unknown>,
  name: string,
  purposes: readonly string[],
  withClientUid: boolean,
): Promise<void> {
  let table = db.schema
    .createTable(name)
    .addColumn('serial', 'text', (col) => col.primaryKey())
    .addColumn('callsign', 'text', (col) => col.notNull())
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('not_before', 'bigint', (col) => col.notNull())
    .addColumn('not_after', 'bigint', (col) => col.notNull())
    .addColumn('issued_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revocation_reason', 'text');
  if (withClientUid) table = table.addColumn('client_uid', 'text');
  await table
    .addCheckConstraint(
      `${name}_purpose_check`,
      sql`purpose in (${sql.join(purposes.map((purpose) => sql.lit(purpose)))})`,
    )
    .execute();
}

async function createCertificatesIndexes(db: Kysely<unknown>): Promise<void> {
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
}

/** Copies the table into its new shape, renaming purposes with `rename` (old -> new). */
async function rebuildCertificates(
  db: Kysely<unknown>,
  purposes: readonly string[],
  withClientUid: boolean,
  rename: Readonly<Record<string, string>>,
): Promise<void> {
  await createCertificatesTable(db, 'issued_certificates_next', purposes, withClientUid);
  const purpose = sql`case purpose ${sql.join(
    Object.entries(rename).map(([from, to]) => sql`when ${sql.lit(from)} then ${sql.lit(to)}`),
    sql` `,
  )} else purpose end`;
  const common = sql.raw(
    'serial, callsign, not_before, not_after, issued_at, revoked_at, revocation_reason',
  );
  await sql`insert into issued_certificates_next (${common}, purpose) select ${common}, ${purpose} from issued_certificates`.execute(
    db,
  );
  await db.schema.dropTable('issued_certificates').execute();
  await db.schema.alterTable('issued_certificates_next').renameTo('issued_certificates').execute();
  await createCertificatesIndexes(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rebuildCertificates(
    db,
    ['browser', 'tak-package', 'tak-enroll', 'server'],
    true,
    PURPOSE_RENAMES,
  );
  await db.schema
    .alterTable('members')
    .addColumn('tak_team', 'text', (col) => col.notNull().defaultTo(DEFAULT_TAK_TEAM))
    .execute();
  await db.schema
    .alterTable('members')
    .addColumn('tak_role', 'text', (col) => col.notNull().defaultTo(DEFAULT_TAK_ROLE))
    .execute();
}

/** Enrolled devices' certificates have no older name: they become `tak` packages' ones. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('members').dropColumn('tak_role').execute();
  await db.schema.alterTable('members').dropColumn('tak_team').execute();
  await rebuildCertificates(db, ['member', 'tak', 'server'], false, {
    browser: 'member',
    'tak-package': 'tak',
    'tak-enroll': 'tak',
  });
}

/** Brings the certificate rows of a backup taken before this migration to its names. */
export function upgradeBackupRows(
  tables: Record<string, Record<string, unknown>[]>,
): Record<string, Record<string, unknown>[]> {
  const certificates = tables.issued_certificates ?? [];
  return {
    ...tables,
    issued_certificates: certificates.map((row) => ({
      ...row,
      purpose: PURPOSE_RENAMES[String(row.purpose)] ?? row.purpose,
    })),
  };
}
