import { sql, type Selectable } from 'kysely';
import { ENROLLMENT_STATE } from '@callsign/contract';
import type { EnrollmentsTable, EnrollmentState, MemberStatus } from '../../db/schema.js';
import { isPostgres, sqliteChangeFingerprint, type Executor } from '../../db/transaction.js';
import { callsignIn } from '../people/callsign.js';

export interface Enrollment {
  /** As the member typed it (the members row's callsign). */
  callsign: string;
  inviteCode: string;
  /** The approval code's hash (auth/codes.ts hashCode): the code itself is never stored. */
  approvalCodeHash: string;
  state: EnrollmentState;
  createdAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  lockReason: string | null;
}

export interface NewEnrollment {
  callsign: string;
  inviteCode: string;
  approvalCodeHash: string;
  createdAt: number;
  /** Approved as it is made (an auto-approving invite), by this callsign; else pending. */
  approvedBy?: string;
}

export interface Decision {
  state: Exclude<EnrollmentState, typeof ENROLLMENT_STATE.pending>;
  at: number;
  by: string;
  lockReason?: string;
}

/**
 * Inserts an enrollment, pending or (with `approvedBy`) approved at once; its members row must
 * exist (same callsign, same case).
 */
export async function insertEnrollment(
  executor: Executor,
  enrollment: NewEnrollment,
): Promise<void> {
  const approved = enrollment.approvedBy !== undefined;
  await executor
    .insertInto('enrollments')
    .values({
      callsign: enrollment.callsign,
      invite_code: enrollment.inviteCode,
      approval_code_hash: enrollment.approvalCodeHash,
      state: approved ? ENROLLMENT_STATE.approved : ENROLLMENT_STATE.pending,
      created_at: enrollment.createdAt,
      decided_at: approved ? enrollment.createdAt : null,
      decided_by: enrollment.approvedBy ?? null,
    })
    .execute();
}

/**
 * The enrollment of a callsign in any case. The stored callsign is found through the members
 * index on lower(callsign), then the enrollment by its primary key: no scan at any size.
 */
export async function findEnrollment(
  executor: Executor,
  callsign: string,
): Promise<Enrollment | undefined> {
  const row = await executor
    .selectFrom('enrollments')
    .selectAll()
    .where('callsign', '=', (eb) =>
      eb
        .selectFrom('members')
        .select('members.callsign')
        .where((eb) => callsignIn(eb, 'members.callsign', callsign)),
    )
    .executeTakeFirst();
  return row && toEnrollment(row);
}

/** An enrollment's decision and where its member stands now (revoked, say, after approval). */
export interface EnrollmentStanding {
  state: EnrollmentState;
  memberStatus: MemberStatus;
}

/** The standing of a callsign's enrollment in any case, in one indexed read; the poll's query. */
export async function findEnrollmentStanding(
  executor: Executor,
  callsign: string,
): Promise<EnrollmentStanding | undefined> {
  return executor
    .selectFrom('members')
    .innerJoin('enrollments', 'enrollments.callsign', 'members.callsign')
    .select(['enrollments.state as state', 'members.status as memberStatus'])
    .where((eb) => callsignIn(eb, 'members.callsign', callsign))
    .executeTakeFirst();
}

/** A row of the enrollment list: who, and how it was decided. */
export type ListedEnrollment = Pick<Enrollment, 'callsign' | 'state'>;

/**
 * Every enrollment, oldest first. Only what the list shows is read: at 11,000 enrollments whole
 * rows cost five times as much (bench/RESULTS.md, section 5).
 */
export async function listEnrollments(executor: Executor): Promise<ListedEnrollment[]> {
  return executor
    .selectFrom('enrollments')
    .select(['callsign', 'state'])
    .orderBy('created_at')
    .orderBy('callsign')
    .execute();
}

/**
 * A fingerprint that changes whenever the enrollment list would, far cheaper than the list.
 * PostgreSQL: how many enrollments there are and the sum of a 64-bit hash of each one's callsign,
 * state and creation time (which orders the list). SQLite: any write (`sqliteChangeFingerprint`).
 */
export async function enrollmentListFingerprint(executor: Executor): Promise<string> {
  if (!isPostgres(executor)) return sqliteChangeFingerprint(executor);
  const { rows } = await sql<{ fingerprint: string }>`
    SELECT count(*) || ':' || coalesce(sum(hashtextextended(
             callsign || ':' || state || ':' || created_at, 0)), 0) AS fingerprint
    FROM enrollments`.execute(executor);
  return rows[0]?.fingerprint ?? '';
}

/** How many enrollments are in each state: one GROUP BY over the table (for the metrics). */
export async function countEnrollmentsByState(
  executor: Executor,
): Promise<Partial<Record<EnrollmentState, number>>> {
  const rows = await executor
    .selectFrom('enrollments')
    .select((eb) => ['state', eb.fn.countAll<number | string>().as('count')])
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
}

/**
 * Records the decision on a pending enrollment (`callsign` as stored). One conditional UPDATE:
 * of any number of racing decisions exactly one changes the row; false for the others.
 */
export async function decideEnrollment(
  executor: Executor,
  callsign: string,
  decision: Decision,
): Promise<boolean> {
  const result = await executor
    .updateTable('enrollments')
    .set({
      state: decision.state,
      decided_at: decision.at,
      decided_by: decision.by,
      lock_reason: decision.lockReason ?? null,
    })
    .where('callsign', '=', callsign)
    .where('state', '=', ENROLLMENT_STATE.pending)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function toEnrollment(row: Selectable<EnrollmentsTable>): Enrollment {
  return {
    callsign: row.callsign,
    inviteCode: row.invite_code,
    approvalCodeHash: row.approval_code_hash,
    state: row.state,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    lockReason: row.lock_reason,
  };
}
