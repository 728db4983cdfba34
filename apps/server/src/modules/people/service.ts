import type { Kysely, Transaction } from 'kysely';
import type {
  AuditAction,
  MemberRow,
  MembersListQuery,
  MembersListResponse,
} from '@callsign/contract';
import { NO_DIRECTORY, thenPublish, type DirectoryChanges } from '../../directory/changes.js';
import type { Database, MemberStatus, Role } from '../../db/schema.js';
import { isPostgres, lockForTransaction, type Executor } from '../../db/transaction.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import type { MemberLookup } from '../auth/identity.js';
import {
  addMemberRole,
  countActiveAdmins,
  countAllMembers,
  countSeenOnTakSince,
  findMemberByCallsign,
  findLastSeenOnTak,
  findLiveKeysMadeByOthers,
  findMemberPreset,
  findTakenCallsigns,
  insertMember,
  listActiveMembersJson,
  memberListFingerprint,
  removeMemberRole,
  setMemberPreset,
  setLastSeenOnTak,
  setMemberStatus,
  type Member,
  type NewMember,
  type StoredPreset,
} from './repository.js';
import { MEMBERSHIP_LOCK } from './membership.js';
import { memberRow, membersPage } from './members-table.js';
import { sameCallsign } from './callsign.js';

const ADMIN: Role = 'admin';

/**
 * Admins managing members (docs/api.md): list and promote here; revoke and demote change other
 * modules too and are commands (commands/revoke-member.ts, demote-member.ts) built on this
 * module's `memberToRevoke` and `takeAdminRole`. Each change is one transaction under the
 * membership lock, so at least one admin remains under any interleaving.
 */
/** A member revoked (commands/revoke-member.ts): what it changed, for the answer and the receipt. */
export interface RevocationResult {
  callsign: string;
  /** Certificates revoked by this call. */
  serials: string[];
  /** The invite codes they had created, deactivated by this call. */
  deactivatedInviteCodes: string[];
  /** The invite code the member enrolled with, if any. */
  inviteCode: string | null;
}

export class PeopleService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    /** Told after a role changed (the directory's admins group, docs/directory.md). */
    private readonly directory: DirectoryChanges = NO_DIRECTORY,
  ) {}

  /** The last member list this instance built, and the fingerprint the data had then. */
  private cachedList: { fingerprint: string; json: string } | undefined;

  /**
   * The member list as JSON text, ready to send (see `listActiveMembersJson`). Building it is most
   * of the request at 10,000 members, so the last list is sent again while the database's
   * fingerprint of it (`memberListFingerprint`) is unchanged. The fingerprint is read first (on
   * PostgreSQL in the list's snapshot): a list is never cached under a newer fingerprint than its
   * own, so a change made through any instance shows on the next read.
   */
  listActiveJson(): Promise<string> {
    const build = async (executor: Executor) => {
      const fingerprint = await memberListFingerprint(executor);
      if (this.cachedList?.fingerprint === fingerprint) return this.cachedList.json;
      const json = await listActiveMembersJson(executor);
      this.cachedList = { fingerprint, json };
      return json;
    };
    if (!isPostgres(this.db)) return build(this.db);
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(build);
  }

  /** One page of the admin's members table (GET admin/members): search, sort, keyset pages. */
  membersPage(query: MembersListQuery): Promise<MembersListResponse> {
    return membersPage(this.db, query);
  }

  /** One member's row of the members table, in any state; 404 for nobody. */
  memberRow(callsign: string): Promise<MemberRow> {
    return memberRow(this.db, callsign);
  }

  /**
   * Gives an active member the admin role; 404 not an active member, 400 already admin. The
   * answer names the member's live keys another admin's code minted: they stay member keys.
   */
  promote(actor: Actor, callsign: string): Promise<string> {
    const change = this.db.transaction().execute(async (trx) => {
      const target = await activeMember(trx, callsign);
      if (!(await addMemberRole(trx, target.callsign, ADMIN))) {
        throw new BadRequestError(`${target.callsign} is already an admin`);
      }
      const others = await findLiveKeysMadeByOthers(trx, target.callsign, this.now().getTime());
      await this.audit(trx, actor, 'member.promote', target.callsign);
      return `${target.callsign} is now an admin${memberKeysNote(target.callsign, others)}`;
    });
    return thenPublish(this.directory, change);
  }

  private audit(
    trx: Transaction<Database>,
    actor: Actor,
    action: AuditAction,
    target: string,
  ): Promise<void> {
    return auditChange(trx, actor, action, target, this.now().getTime());
  }
}

/** What promotion says of the keys that stay member keys (docs/api.md); empty when none. */
function memberKeysNote(callsign: string, keys: readonly { serial: string }[]): string {
  if (keys.length === 0) return '';
  const verb = keys.length === 1 ? 'was' : 'were';
  return (
    `. ${keys.length} of ${callsign}’s live keys ${verb} minted through another admin’s code ` +
    `and carry no admin power (serial ${keys.map((key) => key.serial).join(', ')}): admin ` +
    `calls need a key ${callsign} minted themselves`
  );
}

async function auditChange(
  trx: Transaction<Database>,
  actor: Actor,
  action: AuditAction,
  target: string,
  at: number,
): Promise<void> {
  await appendAuditEvent(trx, {
    at,
    actor: actor.callsign,
    action,
    target,
    outcome: 'success',
    clientAddress: actor.clientAddress,
  });
}

/**
 * The member an admin may revoke, under the membership lock in the caller's transaction (the
 * people rules of commands/revoke-member.ts): 404 unknown or revoked, 409 self or last admin.
 */
export async function memberToRevoke(
  trx: Transaction<Database>,
  actor: Actor,
  callsign: string,
): Promise<Member> {
  await lockForTransaction(trx, MEMBERSHIP_LOCK);
  const target = await findMemberByCallsign(trx, callsign);
  if (target === undefined || target.status === 'revoked') {
    throw new NotFoundError(`No member ${callsign} to revoke`);
  }
  if (sameCallsign(target.callsign, actor.callsign)) {
    throw new ConflictError('You cannot revoke yourself', 'yourself');
  }
  await keepAnAdmin(trx, target, 'revoked');
  return target;
}

/**
 * Takes the admin role away, with its audit event, in the caller's transaction (the people part
 * of commands/demote-member.ts); the member's callsign as recorded. 404 not an active member, 400
 * not admin, 409 self or last admin.
 */
export async function takeAdminRole(
  trx: Transaction<Database>,
  actor: Actor,
  callsign: string,
  at: number,
): Promise<string> {
  const target = await activeMember(trx, callsign);
  if (sameCallsign(target.callsign, actor.callsign)) {
    throw new ConflictError('You cannot demote yourself', 'yourself');
  }
  if (!target.roles.includes(ADMIN)) {
    throw new BadRequestError(`${target.callsign} is not an admin`);
  }
  await keepAnAdmin(trx, target, 'demoted');
  await removeMemberRole(trx, target.callsign, ADMIN);
  await auditChange(trx, actor, 'member.demote', target.callsign, at);
  return target.callsign;
}

/** Takes the membership lock, then finds the member; 404 unless they are active. */
async function activeMember(trx: Transaction<Database>, callsign: string): Promise<Member> {
  await lockForTransaction(trx, MEMBERSHIP_LOCK);
  const member = await findMemberByCallsign(trx, callsign);
  if (member?.status !== 'active') throw new NotFoundError(`No active member ${callsign}`);
  return member;
}

/** 409 when `target` is the only active admin (call under the membership lock). */
async function keepAnAdmin(
  trx: Transaction<Database>,
  target: Member,
  change: 'revoked' | 'demoted',
): Promise<void> {
  if (target.status !== 'active' || !target.roles.includes(ADMIN)) return;
  if ((await countActiveAdmins(trx)) <= 1) {
    throw new ConflictError(`The last admin cannot be ${change}`, 'last_admin');
  }
}

// What other modules do with members, inside their own transaction; the rules of when stay with
// them (enrollment takes a callsign and decides, sign-in makes the first admin).

/** A new member with their roles; false, with nothing written, when the callsign is taken. */
export function addMember(executor: Executor, member: NewMember): Promise<boolean> {
  return insertMember(executor, member);
}

/** Moves a member from one of `change.from` to `change.status`; false when they were in none. */
export function moveMember(
  executor: Executor,
  callsign: string,
  change: { status: MemberStatus; at: number; from: readonly MemberStatus[] },
): Promise<boolean> {
  return setMemberStatus(executor, callsign, change);
}

/** The callsigns among `callsigns` that a member holds in any state, lower-cased. */
export function takenCallsigns(
  executor: Executor,
  callsigns: readonly string[],
): Promise<Set<string>> {
  return findTakenCallsigns(executor, callsigns);
}

/** A member as recorded (any status, the record's spelling), or undefined for nobody. */
export function findMember(executor: Executor, callsign: string): Promise<Member | undefined> {
  return findMemberByCallsign(executor, callsign);
}

/** Records that a TAK Server asked about a key of the member at `at` (certificates/presence.ts). */
export function markSeenOnTak(executor: Executor, callsign: string, at: number): Promise<boolean> {
  return setLastSeenOnTak(executor, callsign, at);
}

/** How many active members a TAK Server asked about a key of at or after `since`. */
export function countSeenOnTak(executor: Executor, since: number): Promise<number> {
  return countSeenOnTakSince(executor, since);
}

/** When a TAK Server last asked about one of the member's keys; null: never. */
export function lastSeenOnTak(executor: Executor, callsign: string): Promise<number | null> {
  return findLastSeenOnTak(executor, callsign);
}

/** A member's TAK preset as stored (the presets module reads it as ATAK's), or undefined. */
export function findStoredPreset(
  executor: Executor,
  callsign: string,
): Promise<StoredPreset | undefined> {
  return findMemberPreset(executor, callsign);
}

/** Stores a member's TAK preset unless they are revoked; false when there is no such member. */
export function storePreset(
  executor: Executor,
  callsign: string,
  preset: { team: string; role: string },
  at: number,
): Promise<boolean> {
  return setMemberPreset(executor, callsign, preset, at);
}

/**
 * No admin makes a key for another admin (docs/api.md): a TAK enrollment token or a renewal code
 * an admin makes for `member` is refused (409) when the member is an admin other than themselves.
 */
export function refuseCodeForAnotherAdmin(member: Member, actor: Actor): void {
  if (!member.roles.includes(ADMIN) || sameCallsign(member.callsign, actor.callsign)) return;
  throw new ConflictError(
    `${member.callsign} is an admin, and no admin makes a key for another admin: ` +
      "demote them first, or the operator uses the CLI's admin-code",
    'admin_key_for_admin',
  );
}

/** True for an active member with the admin role (`callsign` in any case). */
export async function isActiveAdmin(executor: Executor, callsign: string): Promise<boolean> {
  const member = await findMemberByCallsign(executor, callsign);
  return member?.status === 'active' && member.roles.includes(ADMIN);
}

/** How many members there are, in any status (`ca adopt` needs none). */
export function countMembers(executor: Executor): Promise<number> {
  return countAllMembers(executor);
}

/** True while at least one active member holds the admin role. */
export async function hasActiveAdmin(executor: Executor): Promise<boolean> {
  return (await countActiveAdmins(executor)) > 0;
}

/** Who a caller is, as the access check asks: the member's status and roles, or undefined. */
export function memberLookup(db: Kysely<Database>): MemberLookup {
  return async (callsign) => {
    const member = await findMemberByCallsign(db, callsign);
    return member && { callsign: member.callsign, status: member.status, roles: [...member.roles] };
  };
}
