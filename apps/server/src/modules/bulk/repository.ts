import { sql } from 'kysely';
import type { MemberStatus } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { sameCallsignIn } from '../people/callsign.js';

/** A bulk slip with where its member stands, if it has one yet. */
export interface SlipRecord {
  code: string;
  /** The callsign the slip is for, as the admin typed it. */
  callsign: string;
  createdAt: number;
  ownerCallsign: string | null;
  team: string | null;
  role: string | null;
  expiresAt: number | null;
  deactivatedAt: number | null;
  deletedAt: number | null;
  /** The member who enrolled with the slip: status, and whether a key was issued to them. */
  member: { status: MemberStatus; hasKey: boolean } | null;
}

/**
 * Callsigns as a person reads a roster: case-insensitive, digits by their value (Recruit2 before
 * Recruit10), so that printed sheets and the batch page follow a numbered unit's order.
 */
const rosterOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * The slips of a batch in roster order (above), each with the member who enrolled with it. Members are found through the index on lower(callsign) and keys through the one on
 * issued_certificates' lower(callsign): no scan at any size.
 */
export async function listBatchSlips(executor: Executor, batchId: string): Promise<SlipRecord[]> {
  const rows = await executor
    .selectFrom('invite_codes as slip')
    .leftJoin('members as member', (join) =>
      join
        .on((eb) => sameCallsignIn(eb, 'member.callsign', 'slip.reserved_callsign'))
        .onRef('member.invite_code', '=', 'slip.code'),
    )
    .select((eb) => [
      'slip.code',
      'slip.reserved_callsign',
      'slip.created_at',
      'slip.owner_callsign',
      'slip.tak_team',
      'slip.tak_role',
      'slip.expires_at',
      'slip.deactivated_at',
      'slip.deleted_at',
      'member.status as member_status',
      eb
        .exists(
          eb
            .selectFrom('issued_certificates as certificate')
            .select(sql.lit(1).as('one'))
            .where((eb) => sameCallsignIn(eb, 'certificate.callsign', 'member.callsign'))
            .where('certificate.purpose', '!=', 'server'),
        )
        .as('has_key'),
    ])
    .where('slip.batch_id', '=', batchId)
    .execute();
  rows.sort(
    (a, b) =>
      rosterOrder.compare(a.reserved_callsign ?? '', b.reserved_callsign ?? '') ||
      a.code.localeCompare(b.code),
  );
  return rows.map((row) => ({
    code: row.code,
    callsign: row.reserved_callsign ?? '',
    createdAt: row.created_at,
    ownerCallsign: row.owner_callsign,
    team: row.tak_team,
    role: row.tak_role,
    expiresAt: row.expires_at,
    deactivatedAt: row.deactivated_at,
    deletedAt: row.deleted_at,
    // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
    member:
      row.member_status === null
        ? null
        : { status: row.member_status, hasKey: Boolean(row.has_key) },
  }));
}
