import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { BadRequestError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { TokenPolicy } from '../auth/identity.js';
import {
  deleteExpiredSignedOutTokens,
  insertSignedOutToken,
  isTokenSignedOut,
} from './signed-out-token-repository.js';
import type { TokenService } from '../auth/token-service.js';

/**
 * Sign-out ends a bearer token on the server (POST token/sign-out, docs/api.md): its jti is kept
 * until the token would have expired, and `stillSignedIn`, a rule of every bearer use, refuses it
 * from then on, on every instance sharing the database.
 */
export class SignOutService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tokens: TokenService,
    private readonly now: () => Date,
  ) {}

  /** A token counts until it is signed out. */
  readonly stillSignedIn: TokenPolicy = async (claims) =>
    !(await isTokenSignedOut(this.db, claims.jti));

  /**
   * Ends the token `jwt` (400 when there is none, or it is no unexpired token of this portal),
   * pruning the entries that have expired, in one transaction with its audit event. Signing a
   * token out again changes nothing.
   */
  async signOut(clientAddress: string | null, jwt: string | undefined): Promise<void> {
    if (jwt === undefined) {
      throw new BadRequestError('Send the token to sign out as Authorization: Bearer');
    }
    const claims = await this.tokens.verify(jwt);
    if (claims === undefined) {
      throw new BadRequestError('Not a token of this portal, or it has expired already');
    }
    const at = this.now().getTime();
    const callsign = claims.sub ?? null;
    await this.db.transaction().execute(async (trx) => {
      await deleteExpiredSignedOutTokens(trx, at);
      const token = { jti: claims.jti, signedOutAt: at, expiresAt: claims.exp * 1000 };
      if (!(await insertSignedOutToken(trx, token))) return;
      await appendAuditEvent(trx, {
        at,
        actor: callsign,
        action: 'sign-out',
        target: callsign,
        outcome: 'success',
        clientAddress,
        detail: { scope: claims.scope },
      });
    });
  }
}
