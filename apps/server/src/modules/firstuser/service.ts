import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { BadRequestError, ForbiddenError } from '../../errors.js';
import type { FailureBudget } from '../../http/failure-budget.js';
import { audit } from '../audit/audit.js';
import { generateCode, hashCode } from '../auth/codes.js';
import {
  consumeLoginCode,
  insertLoginCode,
  isLoginCodeUsable,
  type LoginCode,
} from '../auth/login-code-repository.js';
import type { IssueTokenInput, TokenClaims, TokenService } from '../auth/token-service.js';
import { recordUsedToken } from '../auth/used-token-repository.js';
import { insertMember } from '../people/repository.js';

export interface FirstuserServiceOptions {
  db: Kysely<Database>;
  tokens: TokenService;
  failures: FailureBudget;
  now: () => Date;
  exchangeCodeTtlMs: number;
  firstAdminTokenTtlMs: number;
  memberTokenTtlMs: number;
}

/**
 * Signing in with a code (product.md §2, §3; spec §4 "Callsign submit, as admin"):
 *
 *   admin code --exchange--> first-admin JWT --add-admin--> exchange code --exchange--> member JWT
 *
 * Every code and the first-admin JWT work once. Codes are looked up only by their hash, and
 * neither codes nor tokens ever reach the audit log.
 */
export class FirstuserService {
  constructor(private readonly options: FirstuserServiceOptions) {}

  /** check-code: true only for an unused, unexpired admin code. A false answer counts. */
  async checkAdminCode(request: FastifyRequest, code: string): Promise<boolean> {
    const { db, failures, now } = this.options;
    await failures.assertAllowed(request.ip);
    const usable = await isLoginCodeUsable(db, hashCode(code), now().getTime(), 'admin');
    if (!usable) await failures.recordFailure(request.ip);
    return usable;
  }

  /** exchange: consumes an admin or exchange code and returns the session it opens. */
  async exchange(request: FastifyRequest, code: string): Promise<string> {
    const { db, tokens, failures, now } = this.options;
    await failures.assertAllowed(request.ip);
    const at = now().getTime();
    const jwt = await db.transaction().execute(async (trx) => {
      const consumed = await consumeLoginCode(trx, hashCode(code), at);
      if (consumed === undefined) return undefined;
      const issued = await tokens.issue(this.sessionFor(consumed));
      const callsign = consumed.subjectCallsign;
      await audit(
        trx,
        request,
        { actor: callsign, action: 'sign-in', target: callsign, outcome: 'success' },
        at,
      );
      return issued.jwt;
    });
    if (jwt === undefined) {
      await failures.recordFailure(request.ip);
      await audit(
        db,
        request,
        { actor: null, action: 'sign-in', target: null, outcome: 'failure' },
        at,
      );
      throw new ForbiddenError('Unknown, used or expired code');
    }
    return jwt;
  }

  /**
   * add-admin, with the claims of a first-admin JWT: spends the token, creates the member active
   * with the admin role and returns the exchange code that signs them in. All or nothing: on a
   * taken callsign the token stays unspent.
   */
  async addAdmin(request: FastifyRequest, session: TokenClaims, callsign: string): Promise<string> {
    const { db, now, exchangeCodeTtlMs } = this.options;
    const at = now().getTime();
    const exchangeCode = generateCode(CODE_LENGTH.exchange);
    await db.transaction().execute(async (trx) => {
      const spent = { jti: session.jti, usedAt: at, expiresAt: session.exp * 1000 };
      if (!(await recordUsedToken(trx, spent))) {
        throw new ForbiddenError('Token already used');
      }
      const admin = { callsign, status: 'active', inviteCode: null, roles: ['admin'], at } as const;
      if (!(await insertMember(trx, admin))) {
        throw new BadRequestError('Callsign taken');
      }
      await insertLoginCode(trx, {
        codeHash: hashCode(exchangeCode),
        kind: 'exchange',
        subjectCallsign: callsign,
        createdAt: at,
        expiresAt: at + exchangeCodeTtlMs,
      });
      await audit(
        trx,
        request,
        { actor: null, action: 'member.add-admin', target: callsign, outcome: 'success' },
        at,
      );
    });
    return exchangeCode;
  }

  private sessionFor(code: LoginCode): IssueTokenInput {
    switch (code.kind) {
      case 'admin':
        return { scope: 'first-admin', ttlMs: this.options.firstAdminTokenTtlMs };
      case 'exchange':
        if (code.subjectCallsign === null) throw new Error('An exchange code without a callsign');
        return {
          scope: 'member',
          subject: code.subjectCallsign,
          ttlMs: this.options.memberTokenTtlMs,
        };
    }
  }
}
