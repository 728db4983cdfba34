// Fills a migrated portal database directly through Kysely, in one transaction, in batches.
import { createHash } from 'node:crypto';

const BATCH = 1000;
const INVITE_CODE = 'BENCHSEED';
/** Approval codes are stored only as their SHA-256 (as modules/auth/codes.ts hashCode makes it). */
const APPROVAL_CODE_HASH = createHash('sha256').update('ABCD2345', 'utf8').digest('hex');

/**
 * @param {import('kysely').Transaction<any>} trx
 * @param {string} tableName
 * @param {Record<string, unknown>[]} rows
 */
async function insertBatched(trx, tableName, rows) {
  for (let start = 0; start < rows.length; start += BATCH) {
    await trx
      .insertInto(tableName)
      .values(rows.slice(start, start + BATCH))
      .execute();
  }
}

/** @param {number} n */
export const activeCallsign = (n) => `M${String(n).padStart(6, '0')}`;
/** @param {number} n */
export const pendingCallsign = (n) => `P${String(n).padStart(6, '0')}`;

/**
 * A members row and its enrollments row: approved for an active member, pending otherwise.
 * @param {string} callsign
 * @param {boolean} active
 * @param {number} at
 */
function enrollee(callsign, active, at) {
  return {
    member: {
      callsign,
      status: active ? 'active' : 'pending',
      invite_code: INVITE_CODE,
      created_at: at,
      updated_at: at,
      revoked_at: null,
    },
    enrollment: {
      callsign,
      invite_code: INVITE_CODE,
      approval_code_hash: APPROVAL_CODE_HASH,
      state: active ? 1 : 0,
      created_at: at,
      decided_at: active ? at : null,
      decided_by: active ? 'BenchAdmin' : null,
      lock_reason: null,
    },
  };
}

const TEAMS = ['Cyan', 'Red', 'Dark Blue', 'Maroon', 'Green', 'Yellow'];
const ROLES = ['Team Member', 'Team Lead', 'Medic', 'Sniper', 'RTO', 'K9', 'HQ'];

/**
 * What the members table shows of member `i` (bench section 11): a TAK preset of its own, seen
 * on TAK at some time in the last 30 days (every fifth never), a key ending within a year.
 * @param {number} i @param {number} at
 */
function details(i, at) {
  return {
    member: {
      tak_team: TEAMS[i % TEAMS.length],
      tak_role: ROLES[i % ROLES.length],
      last_seen_tak_at: i % 5 === 0 ? null : at - ((i * 7919) % 30) * 86_400_000,
    },
    notAfter: at + ((i * 104_729) % 365) * 86_400_000,
  };
}

/**
 * @param {import('kysely').Kysely<any>} db
 * @param {{ active: number, pending: number, revokedShare?: number, memberDetails?: boolean }} counts
 *   `active` members, each with an approved enrollment and one certificate; `pending` enrollees;
 *   `revokedShare` of the active members' certificates are revoked (in the CRL); `memberDetails`:
 *   teams, roles, presence and key expiries that differ from member to member (`details`).
 */
export async function seed(db, counts) {
  const at = Date.now() - 60_000;
  const revokeEvery = counts.revokedShare ? Math.round(1 / counts.revokedShare) : 0;
  /** @type {Record<string, unknown>[]} */
  const members = [];
  /** @type {Record<string, unknown>[]} */
  const enrollments = [];
  /** @type {Record<string, unknown>[]} */
  const certificates = [];
  for (let i = 1; i <= counts.active + counts.pending; i++) {
    const active = i <= counts.active;
    const callsign = active ? activeCallsign(i) : pendingCallsign(i - counts.active);
    const rows = enrollee(callsign, active, at + i);
    const varied = counts.memberDetails ? details(i, at) : undefined;
    members.push({ ...rows.member, ...varied?.member });
    enrollments.push(rows.enrollment);
    if (!active) continue;
    const revoked = revokeEvery > 0 && i % revokeEvery === 0;
    certificates.push({
      serial: (0x1000000000n + BigInt(i)).toString(16).toUpperCase().padStart(16, '0'),
      callsign,
      purpose: 'browser',
      not_before: at,
      not_after: varied?.notAfter ?? at + 365 * 86_400_000,
      issued_at: at,
      revoked_at: revoked ? at + i : null,
      revocation_reason: revoked ? 'bench' : null,
    });
  }
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('invite_codes')
      .values({ code: INVITE_CODE, created_at: at, owner_callsign: null })
      .execute();
    await insertBatched(trx, 'members', members);
    await insertBatched(trx, 'enrollments', enrollments);
    await insertBatched(trx, 'issued_certificates', certificates);
  });
}
