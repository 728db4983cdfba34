import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { countsAsFailure, spendingBudget, type FailureBudget } from '../../http/failure-budget.js';
import { audit } from '../audit/audit.js';
import { generateCode, hashCode } from '../auth/codes.js';
import type { TokenService } from '../auth/token-service.js';
import { findInviteCode, inviteCodeState, recordInviteUse } from '../invites/repository.js';
import { insertMember, setMemberStatus } from '../people/repository.js';
import {
  decideEnrollment,
  findEnrollment,
  insertEnrollment,
  listEnrollments,
  type Decision,
  type Enrollment,
  type ListedEnrollment,
} from './repository.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * How long a pending enrollment is expected to wait for a decision. The enrollment token's own
 * `exp` is this plus the grace period, so even a decision on the last day leaves the full grace
 * for the key download. The real limit is the token policy (token-policy.ts): decision + grace.
 */
export const DECISION_WINDOW_MS = 30 * DAY;

export interface EnrollmentServiceOptions {
  db: Kysely<Database>;
  tokens: TokenService;
  failures: FailureBudget;
  now: () => Date;
  enrollmentGraceMs: number;
}

export interface Enrolled {
  callsign: string;
  approvalCode: string;
  jwt: string;
}

/**
 * The life of an enrollment (spec §4, product.md §4):
 *
 *   (none) --enroll--> pending --accept (admin, approval code)--> approved   member: active
 *                              \-lock (admin, reason)-----------> rejected   member: rejected
 *
 * Enroll takes the callsign for good: the members row stays whatever happens later, so a
 * rejected or revoked callsign is never enrolled again. A decision is final. Each step is one
 * transaction; guesses (invite codes, callsigns, approval codes) spend the caller's failure budget.
 */
export class EnrollmentService {
  constructor(private readonly options: EnrollmentServiceOptions) {}

  /** The invite check: true only for a code that admits people now. A false answer counts. */
  async isInviteCodeActive(request: FastifyRequest, code: string): Promise<boolean> {
    const { db, failures, now } = this.options;
    await failures.assertAllowed(request.ip);
    const invite = await findInviteCode(db, code);
    const active = invite !== undefined && inviteCodeState(invite, now().getTime()) === 'usable';
    if (!active) await failures.recordFailure(request.ip);
    return active;
  }

  /** (none) -> pending: uses the invite code, takes the callsign, makes the approval code. */
  async enroll(
    request: FastifyRequest,
    input: { callsign: string; inviteCode: string },
  ): Promise<Enrolled> {
    const { db, tokens, failures, now, enrollmentGraceMs } = this.options;
    const at = now().getTime();
    const { callsign, inviteCode } = input;
    const approvalCode = generateCode(CODE_LENGTH.approval);
    const enrollment = () =>
      db.transaction().execute(async (trx) => {
        await this.useInviteCode(trx, inviteCode, at);
        const member = { callsign, status: 'pending', inviteCode, roles: [], at } as const;
        if (!(await insertMember(trx, member))) {
          throw countsAsFailure(new BadRequestError('Callsign taken'));
        }
        await insertEnrollment(trx, { callsign, inviteCode, approvalCode, createdAt: at });
        await audit(
          trx,
          request,
          { actor: callsign, action: 'enrollment.create', target: callsign, outcome: 'success' },
          at,
        );
        const { jwt } = await tokens.issue({
          scope: 'enrollment',
          subject: callsign,
          ttlMs: DECISION_WINDOW_MS + enrollmentGraceMs,
        });
        return { callsign, approvalCode, jwt };
      });
    return spendingBudget(failures, request.ip, enrollment);
  }

  /** The caller's own enrollment; 404 when they have none. */
  async enrollmentOf(callsign: string | null): Promise<Enrollment> {
    const enrollment =
      callsign === null ? undefined : await findEnrollment(this.options.db, callsign);
    if (enrollment === undefined) throw new NotFoundError('No enrollment for this caller');
    return enrollment;
  }

  /** Every enrollment, oldest first. */
  list(): Promise<ListedEnrollment[]> {
    return listEnrollments(this.options.db);
  }

  /** pending -> approved, when the admin gives the enrollee's approval code. A wrong one counts. */
  async accept(
    request: FastifyRequest,
    admin: string,
    input: { callsign: string; approvalCode: string },
  ): Promise<Enrollment> {
    return spendingBudget(this.options.failures, request.ip, () =>
      this.decide(request, admin, input.callsign, { state: 1 }, (enrollment) => {
        if (!sameCode(input.approvalCode, enrollment.approvalCode)) {
          throw countsAsFailure(new ForbiddenError('Wrong approval code'));
        }
      }),
    );
  }

  /** pending -> rejected. */
  lock(
    request: FastifyRequest,
    admin: string,
    input: { callsign: string; lockReason: string },
  ): Promise<Enrollment> {
    return this.decide(request, admin, input.callsign, { state: 2, lockReason: input.lockReason });
  }

  /**
   * Decides a pending enrollment and moves its member with it, in one transaction. Both changes
   * compare and set from pending, so of two racing decisions one wins and the other gets 409.
   */
  private decide(
    request: FastifyRequest,
    admin: string,
    callsign: string,
    decision: Pick<Decision, 'state' | 'lockReason'>,
    check: (enrollment: Enrollment) => void = () => undefined,
  ): Promise<Enrollment> {
    const { db, now } = this.options;
    const at = now().getTime();
    const notPending = () => new ConflictError('The enrollment is not pending');
    return db.transaction().execute(async (trx) => {
      const enrollment = await findEnrollment(trx, callsign);
      if (enrollment === undefined) throw new NotFoundError('No such enrollment');
      if (enrollment.state !== 0) throw notPending();
      check(enrollment);
      if (!(await decideEnrollment(trx, enrollment.callsign, { ...decision, at, by: admin }))) {
        throw notPending();
      }
      const status = decision.state === 1 ? 'active' : 'rejected';
      const moved = await setMemberStatus(trx, enrollment.callsign, {
        status,
        at,
        from: ['pending'],
      });
      if (!moved) throw notPending();
      const action = decision.state === 1 ? 'enrollment.accept' : 'enrollment.lock';
      const detail =
        decision.lockReason === undefined ? undefined : { lock_reason: decision.lockReason };
      await audit(
        trx,
        request,
        { actor: admin, action, target: enrollment.callsign, outcome: 'success', detail },
        at,
      );
      return {
        ...enrollment,
        state: decision.state,
        decidedAt: at,
        decidedBy: admin,
        lockReason: decision.lockReason ?? null,
      };
    });
  }

  /** Counts one enrollment against the invite code: 404 unknown or deleted, 400 not usable. */
  private async useInviteCode(trx: Executor, code: string, at: number): Promise<void> {
    if (await recordInviteUse(trx, code, at)) return;
    const invite = await findInviteCode(trx, code);
    const state = invite === undefined ? 'deleted' : inviteCodeState(invite, at);
    switch (state) {
      case 'deleted':
        throw countsAsFailure(new NotFoundError('Unknown invite code'));
      case 'deactivated':
      case 'expired':
        throw countsAsFailure(new BadRequestError(`Invite code ${state}`));
      case 'used-up':
        throw countsAsFailure(new BadRequestError('Invite code used up'));
      case 'usable':
        // Changed under us between the two statements; refuse rather than guess.
        throw countsAsFailure(new BadRequestError('Invite code not usable'));
    }
  }
}

/** Codes compare upper-cased and trimmed (product.md §3), in constant time. */
function sameCode(given: string, expected: string): boolean {
  return timingSafeEqual(
    Buffer.from(hashCode(given), 'hex'),
    Buffer.from(hashCode(expected), 'hex'),
  );
}
