import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database, LoginCodeKind } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError, countsAsFailure, ForbiddenError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import { NO_DIRECTORY, thenPublish, type DirectoryChanges } from '../../directory/changes.js';
import { generateCode, hashCode } from '../auth/codes.js';
import {
  consumeLoginCode,
  deleteUnusedLoginCodes,
  findUsableLoginCode,
  insertLoginCode,
  type LoginCode,
} from './login-code-repository.js';
import { FIRST_START } from './admin-code.js';
import type { IssueTokenInput, TokenClaims, TokenService } from '../auth/token-service.js';
import { recordUsedToken } from './used-token-repository.js';
import { refuseReservedName } from '../people/reserved-callsigns.js';
import { addMember, findMember, hasActiveAdmin } from '../people/service.js';
import { lockReservations, refuseReservedCallsign } from '../invites/reservations.js';

export interface FirstuserServiceOptions {
  db: Kysely<Database>;
  tokens: TokenService;
  now: () => Date;
  exchangeCodeTtlMs: number;
  firstAdminTokenTtlMs: number;
  memberTokenTtlMs: number;
  /** Told after the first admin was added (docs/directory.md); none by default. */
  directory?: DirectoryChanges;
  /** Callsigns nobody may take (`Config.reservedCallsigns`). */
  reservedCallsigns: readonly string[];
}

/**
 * Signing in with a code (docs/api.md):
 *
 *   admin code --exchange--> first-admin JWT --add-admin--> exchange code --exchange--> member JWT
 *   renewal code (an admin made it for an active member) --exchange--> member JWT
 *
 * Every code and the first-admin JWT work once. Codes are looked up only by their hash, and
 * neither codes nor tokens ever reach the audit log. Check-code and exchange are guesses: their
 * routes spend the caller's failure budget (a false check and a refused code count).
 */
export class FirstuserService {
  constructor(private readonly options: FirstuserServiceOptions) {}

  /** check-code: true only for an unused, unexpired admin code that is still live. */
  async checkAdminCode(code: string): Promise<boolean> {
    const { db, now } = this.options;
    const found = await findUsableLoginCode(db, hashCode(code), now().getTime());
    return found?.kind === 'admin' && !(await this.diedWithFirstAdmin(db, found));
  }

  /**
   * A code printed at a start while no admin existed is refused once any admin exists (docs/api.md);
   * a CLI `admin-code` stays usable, the operator's recovery.
   */
  private async diedWithFirstAdmin(executor: Executor, code: LoginCode): Promise<boolean> {
    return code.createdBy === FIRST_START && (await hasActiveAdmin(executor));
  }

  /**
   * exchange: consumes an admin, exchange or renewal code and returns the session it opens; 403
   * (a failed guess) for an unknown, used or expired code, and for a renewal code whose member
   * is no longer active.
   */
  async exchange(clientAddress: string, code: string): Promise<string> {
    const { db, tokens, now } = this.options;
    const at = now().getTime();
    const jwt = await db.transaction().execute(async (trx) => {
      const consumed = await consumeLoginCode(trx, hashCode(code), at);
      if (consumed === undefined) return undefined;
      const session = await this.sessionFor(trx, consumed);
      if (session === undefined) return undefined;
      const issued = await tokens.issue(session);
      const callsign = consumed.subjectCallsign;
      await appendAuditEvent(trx, {
        at,
        actor: callsign,
        action: 'sign-in',
        target: callsign,
        outcome: 'success',
        clientAddress,
        ...(consumed.kind === 'renewal'
          ? { detail: { with: 'renewal code', made_by: consumed.createdBy } }
          : {}),
      });
      return issued.jwt;
    });
    if (jwt === undefined) {
      await appendAuditEvent(db, {
        at,
        actor: null,
        action: 'sign-in',
        target: null,
        outcome: 'failure',
        clientAddress,
      });
      throw countsAsFailure(new ForbiddenError('Unknown, used or expired code'));
    }
    return jwt;
  }

  /**
   * add-admin, with the claims of a first-admin JWT: spends the token, creates the member active
   * with the admin role and returns the exchange code that signs them in. All or nothing: on a
   * taken callsign the token stays unspent.
   */
  async addAdmin(clientAddress: string, session: TokenClaims, callsign: string): Promise<string> {
    const { db, now, exchangeCodeTtlMs } = this.options;
    refuseReservedName(callsign, this.options.reservedCallsigns);
    const at = now().getTime();
    const exchangeCode = generateCode(CODE_LENGTH.exchange);
    const change = db.transaction().execute(async (trx) => {
      const spent = { jti: session.jti, usedAt: at, expiresAt: session.exp * 1000 };
      if (!(await recordUsedToken(trx, spent))) {
        throw new ForbiddenError('Token already used');
      }
      await lockReservations(trx, 'taking');
      await refuseReservedCallsign(trx, callsign, null, at);
      const admin = { callsign, status: 'active', inviteCode: null, roles: ['admin'], at } as const;
      if (!(await addMember(trx, admin))) {
        throw new BadRequestError('Callsign taken');
      }
      await insertLoginCode(trx, {
        codeHash: hashCode(exchangeCode),
        kind: 'exchange',
        subjectCallsign: callsign,
        createdAt: at,
        expiresAt: at + exchangeCodeTtlMs,
      });
      await appendAuditEvent(trx, {
        at,
        actor: null,
        action: 'member.add-admin',
        target: callsign,
        outcome: 'success',
        clientAddress,
      });
    });
    await thenPublish(this.options.directory ?? NO_DIRECTORY, change);
    return exchangeCode;
  }

  private get memberTtl(): number {
    return this.options.memberTokenTtlMs;
  }

  /**
   * The session a code opens; undefined for a renewal code whose member is not active now or has
   * become an admin. A renewal code's session carries the admin who made it (`made_by`).
   */
  private async sessionFor(
    executor: Executor,
    code: LoginCode,
  ): Promise<IssueTokenInput | undefined> {
    if (code.kind === 'admin') {
      if (await this.diedWithFirstAdmin(executor, code)) return undefined;
      return { scope: 'first-admin', ttlMs: this.options.firstAdminTokenTtlMs };
    }
    if (code.subjectCallsign === null) throw new Error(`A ${code.kind} code without a callsign`);
    const subject = code.subjectCallsign;
    if (code.kind === 'renewal') {
      const member = await findMember(executor, subject);
      // An admin since the code was made: no admin makes a key for another admin.
      if (member?.status !== 'active' || member.roles.includes('admin')) return undefined;
      const madeBy = code.createdBy === null ? {} : { madeBy: code.createdBy };
      return { scope: 'member', subject: member.callsign, ttlMs: this.memberTtl, ...madeBy };
    }
    return { scope: 'member', subject, ttlMs: this.memberTtl };
  }
}

/**
 * Stores a login code that signs `subjectCallsign` in, replacing their unused codes of the same
 * kind, in the caller's transaction: how the renewal module (modules/renewal) hands out a
 * renewal code. Returns how many unused codes it replaced.
 */
export async function replaceLoginCode(
  executor: Executor,
  code: {
    codeHash: string;
    kind: LoginCodeKind;
    subjectCallsign: string;
    createdAt: number;
    expiresAt: number;
    createdBy: string;
  },
): Promise<number> {
  const replaced = await deleteUnusedLoginCodes(executor, code.kind, code.subjectCallsign);
  await insertLoginCode(executor, code);
  return replaced;
}
