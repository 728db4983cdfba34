import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  CODE_LENGTH,
  ENROLLMENT_STATE,
  type AcceptanceState,
  type EnrollmentListResponse,
  type EnrollmentStateName,
} from '@callsign/contract';
import type { Database, EnrollmentState } from '../../db/schema.js';
import { isPostgres, type Executor } from '../../db/transaction.js';
import {
  BadRequestError,
  ConflictError,
  countsAsFailure,
  ForbiddenError,
  NotFoundError,
} from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { generateCode, hashCode } from '../auth/codes.js';
import type { TokenService } from '../auth/token-service.js';
import { NO_DIRECTORY, thenPublish, type DirectoryChanges } from '../../directory/changes.js';
import { joinInviteGroups } from '../groups/service.js';
import { inviteCheck, useInviteCode, type InviteCheck } from '../invites/service.js';
import { lockReservations, refuseReservedCallsign } from '../invites/reservations.js';
import { presetOf } from '../presets/preset.js';
import { refuseReservedName } from '../people/reserved-callsigns.js';
import { addMember, moveMember } from '../people/service.js';
import {
  decideEnrollment,
  enrollmentListFingerprint,
  findEnrollment,
  findEnrollmentStanding,
  insertEnrollment,
  listEnrollments,
  type Decision,
  type Enrollment,
} from './repository.js';

/** How many enrollments stand in each state; the metrics read it when Prometheus scrapes. */
export { countEnrollmentsByState } from './repository.js';

const DAY = 24 * 60 * 60 * 1000;

/** Who approved an auto-approved enrollment whose invite has no owner (made by the CLI, say). */
export const AUTO_APPROVER = 'auto';

/**
 * How long a pending enrollment is expected to wait for a decision. The enrollment token's own
 * `exp` is this plus the grace period, so even a decision on the last day leaves the full grace
 * for the key download. The real limit is the token policy (token-policy.ts): decision + grace.
 */
export const DECISION_WINDOW_MS = 30 * DAY;

export interface EnrollmentServiceOptions {
  db: Kysely<Database>;
  tokens: TokenService;
  now: () => Date;
  enrollmentGraceMs: number;
  /** Callsigns nobody may take (`Config.reservedCallsigns`). */
  reservedCallsigns: readonly string[];
  /** Told after a member became active or was rejected (docs/directory.md); none by default. */
  directory?: DirectoryChanges;
}

const STATE_NAMES: Record<EnrollmentState, EnrollmentStateName> = {
  [ENROLLMENT_STATE.pending]: 'pending',
  [ENROLLMENT_STATE.approved]: 'approved',
  [ENROLLMENT_STATE.rejected]: 'rejected',
};

export interface Acceptance {
  /** True only while the enrollment is approved and the member not revoked. */
  accepted: boolean;
  state: AcceptanceState;
}

export interface Enrolled {
  callsign: string;
  approvalCode: string;
  jwt: string;
}

/**
 * The life of an enrollment (docs/api.md):
 *
 *   (none) --enroll--> pending --accept (admin, approval code)--> approved   member: active
 *                              \-lock (admin, reason)-----------> rejected   member: rejected
 *
 * Enroll takes the callsign for good: the members row stays whatever happens later, so a
 * rejected or revoked callsign is never enrolled again. A decision is final. Each step is one
 * transaction. Guesses (invite codes, callsigns, approval codes) are refused with errors marked
 * by countsAsFailure: their routes spend the caller's failure budget.
 */
export class EnrollmentService {
  constructor(private readonly options: EnrollmentServiceOptions) {}

  /**
   * The invite check: active only for a code that admits people now, with the callsign it is
   * for when it is a bulk slip (the only one it enrolls).
   */
  async checkInviteCode(code: string): Promise<InviteCheck> {
    const { db, now } = this.options;
    return inviteCheck(db, code, now().getTime());
  }

  /**
   * (none) -> pending: uses the invite code, takes the callsign, makes the approval code. The
   * code is answered here, once, and stored only as its hash. The member gets the invite's TAK
   * preset; with an auto-approving invite the enrollment is approved in the same transaction
   * (decided by the invite's owner), so the member may fetch their key at once.
   */
  enroll(
    clientAddress: string,
    input: { callsign: string; inviteCode: string },
  ): Promise<Enrolled> {
    const { db, tokens, now, enrollmentGraceMs } = this.options;
    const at = now().getTime();
    const { callsign, inviteCode } = input;
    refuseReservedName(callsign, this.options.reservedCallsigns);
    const approvalCode = generateCode(CODE_LENGTH.approval);
    const change = db.transaction().execute(async (trx) => {
      await lockReservations(trx, 'taking');
      const invite = await useInviteCode(trx, inviteCode, at);
      await refuseReservedCallsign(trx, callsign, invite, at);
      const member = {
        callsign,
        status: invite.autoApprove ? 'active' : 'pending',
        inviteCode,
        roles: [],
        at,
        preset: presetOf(invite.team, invite.role),
      } as const;
      if (!(await addMember(trx, member))) {
        throw countsAsFailure(new BadRequestError('Callsign taken'));
      }
      const groups = await joinInviteGroups(trx, callsign, invite.groups, at);
      const approver = invite.ownerCallsign ?? AUTO_APPROVER;
      await insertEnrollment(trx, {
        callsign,
        inviteCode,
        approvalCodeHash: hashCode(approvalCode),
        createdAt: at,
        ...(invite.autoApprove ? { approvedBy: approver } : {}),
      });
      const event = { at, target: callsign, outcome: 'success', clientAddress } as const;
      await appendAuditEvent(trx, {
        ...event,
        actor: callsign,
        action: 'enrollment.create',
        ...(groups.length === 0 ? {} : { detail: { groups } }),
      });
      if (invite.autoApprove) {
        await appendAuditEvent(trx, {
          ...event,
          actor: approver,
          action: 'enrollment.accept',
          detail: { auto_approve: true, invite_code: invite.code },
        });
      }
      const { jwt } = await tokens.issue({
        scope: 'enrollment',
        subject: callsign,
        ttlMs: DECISION_WINDOW_MS + enrollmentGraceMs,
      });
      return { callsign, approvalCode, jwt };
    });
    return thenPublish(this.options.directory ?? NO_DIRECTORY, change);
  }

  /**
   * Where the caller's own enrollment stands (the poll): its decision, or `revoked` once the
   * member was revoked. 404 when they have none.
   */
  async acceptanceOf(callsign: string | null): Promise<Acceptance> {
    const standing =
      callsign === null ? undefined : await findEnrollmentStanding(this.options.db, callsign);
    if (standing === undefined) throw new NotFoundError('No enrollment for this caller');
    if (standing.memberStatus === 'revoked') return { accepted: false, state: 'revoked' };
    return {
      accepted: standing.state === ENROLLMENT_STATE.approved,
      state: STATE_NAMES[standing.state],
    };
  }

  /** The last enrollment list this instance built, and the fingerprint the data had then. */
  private cachedList: { fingerprint: string; json: string } | undefined;

  /**
   * Every enrollment, oldest first, as the JSON text enrollment/list answers with (the approval
   * code never leaves the enrollee: `approvecode` is always empty). The last list is sent again
   * while the database's fingerprint of it (`enrollmentListFingerprint`) is unchanged; the
   * fingerprint is read first (on PostgreSQL in the list's snapshot), so a list is never cached
   * under a newer fingerprint than its own and a change through any instance shows at once.
   */
  listJson(): Promise<string> {
    const build = async (executor: Executor) => {
      const fingerprint = await enrollmentListFingerprint(executor);
      if (this.cachedList?.fingerprint === fingerprint) return this.cachedList.json;
      const enrollments = await listEnrollments(executor);
      const json = JSON.stringify({
        callsign_list: enrollments.map(({ callsign, state }) => ({
          callsign,
          approvecode: '',
          state,
        })),
      } satisfies EnrollmentListResponse);
      this.cachedList = { fingerprint, json };
      return json;
    };
    const { db } = this.options;
    if (!isPostgres(db)) return build(db);
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(build);
  }

  /**
   * pending -> approved, when the admin gives the enrollee's approval code. A wrong one counts
   * against the admin's failure budget and is audited as a failed accept (after the refused
   * transaction rolled back).
   */
  async accept(
    actor: Actor,
    input: { callsign: string; approvalCode: string },
  ): Promise<Enrollment> {
    let refused: { target: string; error: Error } | undefined;
    try {
      return await this.decide(
        actor,
        input.callsign,
        { state: ENROLLMENT_STATE.approved },
        (enrollment) => {
          if (!matchesHash(input.approvalCode, enrollment.approvalCodeHash)) {
            const error = countsAsFailure(new ForbiddenError('Wrong approval code'));
            refused = { target: enrollment.callsign, error };
            throw error;
          }
        },
      );
    } catch (error) {
      if (refused !== undefined && error === refused.error) {
        await appendAuditEvent(this.options.db, {
          at: this.options.now().getTime(),
          actor: actor.callsign,
          action: 'enrollment.accept',
          target: refused.target,
          outcome: 'failure',
          clientAddress: actor.clientAddress,
          detail: { reason: 'wrong approval code' },
        });
      }
      throw error;
    }
  }

  /** pending -> rejected. */
  lock(actor: Actor, input: { callsign: string; lockReason: string }): Promise<Enrollment> {
    return this.decide(actor, input.callsign, {
      state: ENROLLMENT_STATE.rejected,
      lockReason: input.lockReason,
    });
  }

  /**
   * Decides a pending enrollment and moves its member with it, in one transaction. Both changes
   * compare and set from pending, so of two racing decisions one wins and the other gets 409.
   */
  private decide(
    actor: Actor,
    callsign: string,
    decision: Pick<Decision, 'state' | 'lockReason'>,
    check: (enrollment: Enrollment) => void = () => undefined,
  ): Promise<Enrollment> {
    const { db, now } = this.options;
    const at = now().getTime();
    const admin = actor.callsign;
    const notPending = () => new ConflictError('The enrollment is not pending');
    const change = db.transaction().execute(async (trx) => {
      const enrollment = await findEnrollment(trx, callsign);
      if (enrollment === undefined) throw new NotFoundError('No such enrollment');
      if (enrollment.state !== ENROLLMENT_STATE.pending) throw notPending();
      check(enrollment);
      if (!(await decideEnrollment(trx, enrollment.callsign, { ...decision, at, by: admin }))) {
        throw notPending();
      }
      const approved = decision.state === ENROLLMENT_STATE.approved;
      const status = approved ? 'active' : 'rejected';
      const moved = await moveMember(trx, enrollment.callsign, {
        status,
        at,
        from: ['pending'],
      });
      if (!moved) throw notPending();
      const action = approved ? 'enrollment.accept' : 'enrollment.lock';
      const detail =
        decision.lockReason === undefined ? undefined : { lock_reason: decision.lockReason };
      await appendAuditEvent(trx, {
        at,
        actor: admin,
        action,
        target: enrollment.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail,
      });
      return {
        ...enrollment,
        state: decision.state,
        decidedAt: at,
        decidedBy: admin,
        lockReason: decision.lockReason ?? null,
      };
    });
    return thenPublish(this.options.directory ?? NO_DIRECTORY, change);
  }
}

/** Codes compare upper-cased and trimmed (docs/api.md), by their hash, in constant time. */
function matchesHash(given: string, expectedHash: string): boolean {
  const expected = Buffer.from(expectedHash, 'hex');
  const actual = Buffer.from(hashCode(given), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
