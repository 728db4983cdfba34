import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Database, GroupDirection, InviteCodesTable } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

type InviteCodes = ExpressionBuilder<Database, 'invite_codes'>;

/** A code that is not deleted: the only ones any call may see or change. */
function isLive(eb: InviteCodes) {
  return eb('deleted_at', 'is', null);
}

/** The live code `code` (codes are stored upper-case). */
function liveCode(code: string) {
  return (eb: InviteCodes) => eb.and([eb('code', '=', code.toUpperCase()), isLive(eb)]);
}

export interface InviteCode {
  code: string;
  createdAt: number;
  ownerCallsign: string | null;
  label: string | null;
  expiresAt: number | null;
  maxUses: number | null;
  useCount: number;
  deactivatedAt: number | null;
  deletedAt: number | null;
  autoApprove: boolean;
  /** The TAK preset of the members it admits; null: the default. */
  team: string | null;
  role: string | null;
  /** A bulk slip's callsign, as the admin typed it. */
  reservedCallsign: string | null;
  batchId: string | null;
  /** The groups it gives the member it admits (docs/directory.md). */
  groups: InviteGroup[];
}

/** A group an invite gives, with TAK Server's direction. */
export interface InviteGroup {
  name: string;
  direction: GroupDirection;
}

export interface NewInviteCode {
  code: string;
  createdAt: number;
  ownerCallsign: string | null;
  label?: string | null;
  expiresAt?: number | null;
  maxUses?: number | null;
  autoApprove?: boolean;
  team?: string | null;
  role?: string | null;
  reservedCallsign?: string | null;
  batchId?: string | null;
  groups?: readonly InviteGroup[];
}

/** Why a code admits nobody, or `usable`. Deleted codes are treated as unknown by callers. */
export type InviteCodeState = 'usable' | 'deactivated' | 'deleted' | 'expired' | 'used-up';

export function inviteCodeState(code: InviteCode, now: number): InviteCodeState {
  if (code.deletedAt !== null) return 'deleted';
  if (code.deactivatedAt !== null) return 'deactivated';
  if (code.expiresAt !== null && code.expiresAt <= now) return 'expired';
  if (code.maxUses !== null && code.useCount >= code.maxUses) return 'used-up';
  return 'usable';
}

function toRow(code: NewInviteCode): Insertable<InviteCodesTable> {
  return {
    code: code.code,
    created_at: code.createdAt,
    owner_callsign: code.ownerCallsign,
    label: code.label ?? null,
    expires_at: code.expiresAt ?? null,
    max_uses: code.maxUses ?? null,
    auto_approve: code.autoApprove === true ? 1 : 0,
    tak_team: code.team ?? null,
    tak_role: code.role ?? null,
    reserved_callsign: code.reservedCallsign ?? null,
    batch_id: code.batchId ?? null,
    tak_groups:
      code.groups === undefined || code.groups.length === 0 ? null : JSON.stringify(code.groups),
  };
}

/** False, with nothing written, when the code exists already (the primary key decides). */
export async function insertInviteCode(executor: Executor, code: NewInviteCode): Promise<boolean> {
  return (await insertInviteCodes(executor, [code])).length > 0;
}

/**
 * Inserts the codes in one statement and returns the ones written: a code that exists already
 * (the primary key decides) is left out, with nothing written for it.
 */
export async function insertInviteCodes(
  executor: Executor,
  codes: readonly NewInviteCode[],
): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await executor
    .insertInto('invite_codes')
    .values(codes.map(toRow))
    .onConflict((oc) => oc.doNothing())
    .returning('code')
    .execute();
  return rows.map((row) => row.code);
}

/** The code, deleted or not; codes are stored upper-case. */
export async function findInviteCode(
  executor: Executor,
  code: string,
): Promise<InviteCode | undefined> {
  const row = await executor
    .selectFrom('invite_codes')
    .selectAll()
    .where('code', '=', code.toUpperCase())
    .executeTakeFirst();
  return row && toInviteCode(row);
}

/** Codes not deleted, newest first (enrollment/pools). */
export async function listInviteCodes(executor: Executor): Promise<InviteCode[]> {
  const rows = await executor
    .selectFrom('invite_codes')
    .selectAll()
    .where(isLive)
    .orderBy('created_at', 'desc')
    .orderBy('code')
    .execute();
  return rows.map(toInviteCode);
}

/** A code that admits people at `now`: live, active, not expired, under its use limit. */
function admitsPeople(now: number) {
  return (eb: InviteCodes) =>
    eb.and([
      isLive(eb),
      eb('deactivated_at', 'is', null),
      eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]),
      eb.or([eb('max_uses', 'is', null), eb('use_count', '<', eb.ref('max_uses'))]),
    ]);
}

/**
 * Counts one enrollment against the code, only while it admits people: not deleted, not
 * deactivated, not expired and under its use limit, in one conditional UPDATE, so racing
 * enrollments can never exceed the limit. The code as it is after the use; undefined when it
 * admits nobody.
 */
export async function recordInviteUse(
  executor: Executor,
  code: string,
  now: number,
): Promise<InviteCode | undefined> {
  const row = await executor
    .updateTable('invite_codes')
    .set((eb) => ({ use_count: eb('use_count', '+', 1) }))
    .where('code', '=', code.toUpperCase())
    .where(admitsPeople(now))
    .returningAll()
    .executeTakeFirst();
  return row && toInviteCode(row);
}

/**
 * The callsigns among `callsigns` (compared case-insensitively, answered lower-cased) that a
 * slip admitting people at `now` reserves.
 */
export async function findReservedCallsigns(
  executor: Executor,
  callsigns: readonly string[],
  now: number,
): Promise<Set<string>> {
  if (callsigns.length === 0) return new Set();
  const rows = await executor
    .selectFrom('invite_codes')
    .select((eb) => eb.fn<string>('lower', ['reserved_callsign']).as('reserved'))
    .where((eb) =>
      eb(
        eb.fn('lower', ['reserved_callsign']),
        'in',
        callsigns.map((callsign) => callsign.toLowerCase()),
      ),
    )
    .where(admitsPeople(now))
    .execute();
  return new Set(rows.map((row) => row.reserved));
}

/**
 * Sets or clears `deactivated_at` on a code that is not deleted: `done` when the code exists (and
 * is not deleted), whether or not it changed (activate and deactivate are idempotent); `unknown`
 * when it does not; `voided-slip` for activating a deactivated bulk slip, which stays void.
 */
export async function setInviteCodeActive(
  executor: Executor,
  code: string,
  active: boolean,
  now: number,
): Promise<'done' | 'unknown' | 'voided-slip'> {
  let update = executor
    .updateTable('invite_codes')
    .set({ deactivated_at: active ? null : now })
    .where(liveCode(code))
    .where('deactivated_at', active ? 'is not' : 'is', null);
  if (active) update = update.where('batch_id', 'is', null);
  const existing = await update.executeTakeFirst();
  if (existing.numUpdatedRows > 0n) return 'done';
  const found = await findInviteCode(executor, code);
  if (found === undefined || found.deletedAt !== null) return 'unknown';
  return active && found.batchId !== null && found.deactivatedAt !== null ? 'voided-slip' : 'done';
}

/** Makes `owner` the owner of a live code (an admin took it over). */
export async function setInviteCodeOwner(
  executor: Executor,
  code: string,
  owner: string,
): Promise<void> {
  await executor
    .updateTable('invite_codes')
    .set({ owner_callsign: owner })
    .where(liveCode(code))
    .execute();
}

/** Soft-deletes a code; false when it is unknown or deleted already. */
export async function deleteInviteCode(
  executor: Executor,
  code: string,
  now: number,
): Promise<boolean> {
  const result = await executor
    .updateTable('invite_codes')
    .set({ deleted_at: now })
    .where(liveCode(code))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deactivates every live, active code `owner` created; returns the codes it deactivated. */
export async function deactivateInviteCodesOwnedBy(
  executor: Executor,
  owner: string,
  now: number,
): Promise<string[]> {
  const rows = await executor
    .updateTable('invite_codes')
    .set({ deactivated_at: now })
    .where('owner_callsign', '=', owner)
    .where(isLive)
    .where('deactivated_at', 'is', null)
    .returning('code')
    .execute();
  return rows.map((row) => row.code).sort();
}

/** Deactivates the codes of a bulk batch nobody has used and that are still live; their codes. */
export async function deactivateUnusedCodesOfBatch(
  executor: Executor,
  batchId: string,
  at: number,
): Promise<string[]> {
  const rows = await executor
    .updateTable('invite_codes')
    .set({ deactivated_at: at })
    .where('batch_id', '=', batchId)
    .where('use_count', '=', 0)
    .where('deleted_at', 'is', null)
    .where('deactivated_at', 'is', null)
    .returning('code')
    .execute();
  return rows.map((row) => row.code).sort();
}

function toInviteCode(row: Selectable<InviteCodesTable>): InviteCode {
  return {
    code: row.code,
    createdAt: row.created_at,
    ownerCallsign: row.owner_callsign,
    label: row.label,
    expiresAt: row.expires_at,
    maxUses: row.max_uses,
    useCount: row.use_count,
    deactivatedAt: row.deactivated_at,
    deletedAt: row.deleted_at,
    autoApprove: row.auto_approve === 1,
    team: row.tak_team,
    role: row.tak_role,
    reservedCallsign: row.reserved_callsign,
    batchId: row.batch_id,
    groups: row.tak_groups === null ? [] : (JSON.parse(row.tak_groups) as InviteGroup[]),
  };
}
