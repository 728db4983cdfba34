import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { TAK_ENROLL_TOKEN_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { ConflictError, countsAsFailure, HttpError, NotFoundError } from '../../errors.js';
import type { Preset } from '@callsign/contract';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { generateCode, hashCode } from '../auth/codes.js';
import type { TokenService } from '../auth/token-service.js';
import { findMember, refuseCodeForAnotherAdmin } from '../people/service.js';
import { presetOf } from '../presets/preset.js';
import {
  findTakEnrollmentToken,
  findTakEnrollmentTokenOf,
  replaceTakEnrollmentToken,
  type FoundTakEnrollmentToken,
  spendTakEnrollmentToken,
} from './tak-enrollment-token-repository.js';
import { sameCallsign } from '../people/callsign.js';

/** The login a TAK client fails: 401 and the challenge that makes ATAK ask for credentials. */
export class BasicAuthError extends HttpError {
  constructor(detail = 'Log in with your callsign and enrollment token') {
    super(401, detail, { 'www-authenticate': 'Basic realm="TAK enrollment", charset="UTF-8"' });
  }
}

/** How long after it signed a certificate a token still fetches the enrollment profile. */
export const PROFILE_WINDOW_MS = 10 * 60_000;

/** What a token is used for: enrolling (config, signClient) or the profile after it. */
export type LoginUse = 'enroll' | 'profile';

/** A TAK client logged in with a member's token. */
export interface TakEnrollmentLogin {
  /** As the member's record has it. */
  callsign: string;
  tokenHash: string;
  /** Whether the token has signed a certificate already. */
  spent: boolean;
  preset: Preset;
  /** The admin whose code the token rests on; the key it signs records them. */
  madeBy: string | null;
  /** When the token expires unspent (ms since the epoch). */
  expiresAt: number;
}

/** The user name and password a TAK client logs in with: the callsign and the token. */
export interface TakCredentials {
  username: string;
  password: string;
}

/** An access token of TAK Server's OAuth, for one enrollment (`POST /oauth/token`). */
export interface TakAccessToken {
  jwt: string;
  expiresInSeconds: number;
}

export interface IssuedToken {
  callsign: string;
  token: string;
  expiresAt: Date;
}

const BASIC = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;
/** TAK Server's own pattern for a bearer token (AccessTokenResolver). */
const BEARER = /^Bearer ([a-zA-Z0-9-._~+/]+=*)$/i;
/** No token the portal makes is longer; a longer password is refused before it is hashed. */
const MAX_PASSWORD_LENGTH = 64;

/** User name and password of an HTTP Basic header; undefined for anything else. */
export function basicCredentials(header: string | undefined): TakCredentials | undefined {
  const encoded = header === undefined ? undefined : BASIC.exec(header)?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // ATAK trims both fields as they are typed; do the same for any client.
  return { username: decoded.slice(0, colon).trim(), password: decoded.slice(colon + 1).trim() };
}

/** A wrong login: 401, counted as a failed guess. */
function refused(): BasicAuthError {
  return countsAsFailure(new BasicAuthError('Wrong callsign or token'));
}

/**
 * What ties an access token to the token it was granted for: derived from the token's hash, so
 * the access token carries neither the token nor the hash the database keeps.
 */
function bindingOf(tokenHash: string): string {
  return createHash('sha256').update(`tak-oauth:${tokenHash}`).digest('base64url');
}

/**
 * The one-time tokens of TAK enrollment: 12 characters of the code alphabet,
 * stored only as a hash, one per member (a new one voids the last), single use; a spent token
 * still fetches the profile for `PROFILE_WINDOW_MS`.
 */
export class TakEnrollmentTokens {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlMs: number,
    private readonly now: () => Date,
    private readonly accessTokens: Pick<TokenService, 'issueTakEnrollment' | 'verifyTakEnrollment'>,
  ) {}

  /**
   * A new token for an active member, voiding their previous one, audited. 404 for an unknown
   * callsign, 409 for someone who is not an active member (pending, rejected, revoked).
   */
  issue(callsign: string, actor: Actor): Promise<IssuedToken> {
    return this.db.transaction().execute(async (trx) => {
      const member = await findMember(trx, callsign);
      if (member === undefined) throw new NotFoundError('No such member');
      if (member.status !== 'active') {
        throw new ConflictError(`${member.callsign} is not an active member`);
      }
      refuseCodeForAnotherAdmin(member, actor);
      const madeBy = sameCallsign(actor.callsign, member.callsign) ? actor.madeBy : actor.callsign;
      const token = generateCode(TAK_ENROLL_TOKEN_LENGTH);
      const at = this.now().getTime();
      const expiresAt = at + this.ttlMs;
      await replaceTakEnrollmentToken(trx, {
        callsign: member.callsign,
        tokenHash: hashCode(token),
        createdAt: at,
        expiresAt,
        createdBy: actor.callsign,
        madeBy: madeBy ?? null,
      });
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'tak.enrollment-token',
        target: member.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: {
          expires_at: new Date(expiresAt).toISOString(),
          ...(madeBy === undefined ? {} : { made_by: madeBy }),
        },
      });
      return { callsign: member.callsign, token, expiresAt: new Date(expiresAt) };
    });
  }

  /**
   * The member a TAK client logs in as: `Authorization: Basic callsign:token`, or `Bearer` with
   * an access token `/oauth/token` granted for that token. 401 without credentials; 401 counted
   * as a failed guess (failure budget) for a wrong user name, an unknown, expired, spent or
   * voided token (an access token stands or falls with its token), or a member who is no longer
   * active.
   */
  async login(authorization: string | undefined, use: LoginUse): Promise<TakEnrollmentLogin> {
    const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (bearer !== undefined) return this.bearerLogin(bearer, use);
    const credentials = basicCredentials(authorization);
    if (credentials === undefined) throw new BasicAuthError();
    return this.passwordLogin(credentials, use);
  }

  /** The member a TAK client logs in as with the callsign and token (Basic or a password grant). */
  async passwordLogin(credentials: TakCredentials, use: LoginUse): Promise<TakEnrollmentLogin> {
    if (credentials.password === '' || credentials.password.length > MAX_PASSWORD_LENGTH) {
      throw refused();
    }
    const tokenHash = hashCode(credentials.password);
    const found = await findTakEnrollmentToken(this.db, tokenHash);
    if (found === undefined || !sameCallsign(found.callsign, credentials.username)) {
      throw refused();
    }
    return this.admitted(found, tokenHash, use);
  }

  /**
   * TAK Server's OAuth access token for this login (`POST /oauth/token`): good only while the
   * token it was granted for is, since every use looks that token up again (`login`).
   */
  accessToken(login: TakEnrollmentLogin): Promise<TakAccessToken> {
    return this.accessTokens.issueTakEnrollment(
      { callsign: login.callsign, binding: bindingOf(login.tokenHash) },
      new Date(login.expiresAt + PROFILE_WINDOW_MS),
    );
  }

  private async bearerLogin(jwt: string, use: LoginUse): Promise<TakEnrollmentLogin> {
    const access = await this.accessTokens.verifyTakEnrollment(jwt);
    const found =
      access === undefined ? undefined : await findTakEnrollmentTokenOf(this.db, access.callsign);
    if (found === undefined || access?.binding !== bindingOf(found.tokenHash)) throw refused();
    return this.admitted(found, found.tokenHash, use);
  }

  private admitted(
    found: FoundTakEnrollmentToken,
    tokenHash: string,
    use: LoginUse,
  ): TakEnrollmentLogin {
    if (
      found.memberStatus !== 'active' ||
      // Made for a member who has become an admin since: no admin makes a key for another.
      (found.madeBy !== null && found.memberIsAdmin) ||
      !this.usable(found, use)
    ) {
      throw refused();
    }
    return {
      callsign: found.callsign,
      tokenHash,
      spent: found.usedAt !== null,
      preset: presetOf(found.team, found.role),
      madeBy: found.madeBy,
      expiresAt: found.expiresAt,
    };
  }

  /**
   * Spends the login's token on the certificate it signed, in the transaction that records the
   * certificate: 401 (counted) when another request spent it first or it expired meanwhile, and
   * the transaction then records nothing.
   */
  async spend(
    trx: Transaction<Database>,
    login: TakEnrollmentLogin,
    spend: { clientUid: string | null; serial: string },
  ): Promise<void> {
    const at = this.now().getTime();
    if (!(await spendTakEnrollmentToken(trx, { tokenHash: login.tokenHash, at, ...spend }))) {
      throw refused();
    }
  }

  private usable(found: { expiresAt: number; usedAt: number | null }, use: LoginUse): boolean {
    const now = this.now().getTime();
    if (found.usedAt === null) return now < found.expiresAt;
    return use === 'profile' && now < found.usedAt + PROFILE_WINDOW_MS;
  }
}
