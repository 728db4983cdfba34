import type { Kysely } from 'kysely';
import type { GroupMembership } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { UserFileEntry } from '../../tak/user-authentication-file.js';
import type { Actor } from '../auth/actor.js';
import { findMember } from '../people/service.js';
import { NO_DIRECTORY, thenPublish, type DirectoryChanges } from '../../directory/changes.js';
import { ldapName } from '../../directory/entries.js';
import {
  countGroupMembers,
  deleteGroup,
  findGroup,
  findGroups,
  groupNames,
  insertGroup,
  insertMemberGroups,
  listGroups,
  listMemberGroups,
  newestKeyFingerprints,
  readDirectoryState,
  replaceMemberGroups,
  type DirectoryState,
  type Group,
  type GroupPlace,
  type GroupWithMembers,
  type MemberGroup,
} from './repository.js';

export type { DirectoryState, Group, GroupPlace, GroupWithMembers, MemberGroup };

export interface MemberGroups {
  /** As the member's record has it. */
  callsign: string;
  groups: MemberGroup[];
}

/**
 * The groups of `wanted` with their names as stored, in the caller's transaction; 400 naming
 * every group that does not exist (an invite, a batch or a member may only name existing ones).
 */
export async function existingGroups(
  executor: Executor,
  wanted: readonly GroupMembership[],
): Promise<GroupPlace[]> {
  const found = await findGroups(
    executor,
    wanted.map((group) => group.name),
  );
  const unknown = wanted.filter((group) => !found.has(group.name.toLowerCase()));
  if (unknown.length > 0) {
    throw new BadRequestError(`No such group: ${unknown.map((group) => group.name).join(', ')}`);
  }
  return wanted.map((group) => ({
    name: found.get(group.name.toLowerCase())?.name ?? group.name,
    direction: group.direction,
  }));
}

/**
 * Puts a member who just enrolled in the groups their invite carried, in the caller's
 * transaction; a group deleted since the invite was made is left out. Answers the groups joined.
 */
export async function joinInviteGroups(
  executor: Executor,
  callsign: string,
  groups: readonly GroupPlace[],
  at: number,
): Promise<GroupPlace[]> {
  const found = await findGroups(
    executor,
    groups.map((group) => group.name),
  );
  const joined = groups.flatMap((group) => {
    const stored = found.get(group.name.toLowerCase());
    return stored === undefined ? [] : [{ name: stored.name, direction: group.direction }];
  });
  await insertMemberGroups(executor, callsign, joined, at);
  return joined;
}

/**
 * Groups (docs/api.md "Groups"): TAK Server's groups, owned by the portal. Each
 * change is one transaction with its audit event; the directory is told after the commit.
 */
export class GroupService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly directory: DirectoryChanges = NO_DIRECTORY,
  ) {}

  list(): Promise<GroupWithMembers[]> {
    return listGroups(this.db);
  }

  /** What the directory should hold, read from the database (the reconciler's truth). */
  directoryState(): Promise<DirectoryState> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => readDirectoryState(trx));
  }

  /**
   * What UserAuthenticationFile.xml lists (docs/tak.md): every active member by
   * callsign, the newest live key's fingerprint, their groups with the direction.
   */
  userFile(): Promise<UserFileEntry[]> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const state = await readDirectoryState(trx);
        const fingerprints = await newestKeyFingerprints(trx, this.now().getTime());
        return state.members.map((member) => ({
          identifier: member.callsign,
          fingerprint: fingerprints.get(member.callsign),
          groups: member.groups,
        }));
      });
  }

  /**
   * A new group, its name kept as LDAP compares it (spaces at the ends dropped, runs of spaces
   * one); 409 when a group LDAP would see as the same exists (docs/directory.md).
   */
  create(actor: Actor, group: Group): Promise<Group> {
    const created = { ...group, name: group.name.trim().replace(/ {2,}/g, ' ') };
    return this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      const same = (await groupNames(trx)).find(
        (name) => ldapName(name) === ldapName(created.name),
      );
      const inserted =
        same === undefined &&
        (await insertGroup(trx, { ...created, createdAt: at, createdBy: actor.callsign }));
      if (!inserted) {
        throw new ConflictError(
          `A group "${same ?? created.name}" exists: LDAP, where TAK Server reads groups, compares ` +
            'names in any case, with spaces at the ends dropped and runs of spaces as one',
          'group_exists',
        );
      }
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'group.create',
        target: created.name,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { description: created.description },
      });
      return created;
    });
  }

  /**
   * Deletes a group; 404 unknown; 409 while members are in it, unless `force`, which takes
   * them out with it. Answers its name as stored and how many members it had.
   */
  delete(
    actor: Actor,
    name: string,
    force: boolean,
  ): Promise<{ name: string; membersRemoved: number }> {
    const change = this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      const group = await findGroup(trx, name);
      if (group === undefined) throw new NotFoundError(`No group ${name}`);
      const members = await countGroupMembers(trx, group.name);
      if (members > 0 && !force) {
        throw new ConflictError(
          `Group ${group.name} has ${members} member(s): take them out first, or delete with force=true`,
        );
      }
      await deleteGroup(trx, group.name);
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'group.delete',
        target: group.name,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: { members_removed: members, force },
      });
      return { name: group.name, membersRemoved: members };
    });
    return thenPublish(this.directory, change);
  }

  /** A member's groups (a member who is not revoked or rejected); 404 otherwise. */
  async ofMember(callsign: string): Promise<MemberGroups> {
    const member = await findMember(this.db, callsign);
    if (member === undefined || member.status === 'revoked' || member.status === 'rejected') {
      throw new NotFoundError(`No member ${callsign}`);
    }
    return { callsign: member.callsign, groups: await listMemberGroups(this.db, member.callsign) };
  }

  /**
   * The member's groups become exactly `groups`; 404 for a member who is revoked, rejected or
   * unknown; 400 naming every group that does not exist. Audited with what they were.
   */
  setForMember(
    actor: Actor,
    callsign: string,
    groups: readonly GroupMembership[],
  ): Promise<MemberGroups> {
    const change = this.db.transaction().execute(async (trx) => {
      const at = this.now().getTime();
      const member = await findMember(trx, callsign);
      if (member === undefined || member.status === 'revoked' || member.status === 'rejected') {
        throw new NotFoundError(`No member ${callsign}`);
      }
      const places = await existingGroups(trx, groups);
      const before = await listMemberGroups(trx, member.callsign);
      await replaceMemberGroups(trx, member.callsign, places, at);
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'member.groups',
        target: member.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: {
          groups: places,
          was: before.map(({ name, direction }) => ({ name, direction })),
        },
      });
      return { callsign: member.callsign, groups: await listMemberGroups(trx, member.callsign) };
    });
    return thenPublish(this.directory, change);
  }
}
