import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { chmod, link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  errors as joseErrors,
  exportPKCS8,
  generateKeyPair,
  importPKCS8,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { CryptoKey, JWTPayload } from 'jose';
import { tokenScopeSchema, type TokenScope } from '@callsign/contract';

/**
 * The portal's JWTs (docs/api.md): ES256, signed with a key made at first start and kept with
 * the CA material. Claims: `sub` (callsign; absent for the first-admin session), `scope`, `jti`,
 * `iat`, `exp`, and `made_by` on a member session a renewal code opened (the admin who made the
 * code: keys minted with the session record it).
 */

export const JWT_KEY_FILE = 'jwt-es256-key.pem';
const ALGORITHM = 'ES256';
const ISSUER = 'callsign-portal';

export interface TokenClaims extends JWTPayload {
  scope: TokenScope;
  jti: string;
  iat: number;
  exp: number;
  sub?: string;
  made_by?: string;
}

export interface IssueTokenInput {
  scope: TokenScope;
  subject?: string;
  /** The admin whose code opens this session (a renewal code). */
  madeBy?: string;
  /** Lifetime; the token expires this long after now. */
  ttlMs: number;
}

export interface IssuedToken {
  jwt: string;
  claims: TokenClaims;
}

/**
 * The issuer of the access tokens the TAK enrollment face hands out on `/oauth/token`: another
 * issuer than the portal's own, so that `verify` (every API bearer) refuses them and
 * `verifyTakEnrollment` refuses every other token.
 */
const TAK_ENROLLMENT_ISSUER = 'callsign-portal/tak-enrollment';

/** What an access token of the TAK enrollment face says (docs/tak.md, "Stock TAK libraries"). */
export interface TakEnrollmentAccess {
  /** The callsign as recorded. */
  callsign: string;
  /** Ties the access token to the one enrollment token it was granted for. */
  binding: string;
}

/**
 * Writes a new key beside the final name and hard-links it into place: linking never replaces a
 * file, so when several instances sharing the data directory start at once, exactly one key wins
 * and every instance uses that one (a token signed by any instance verifies on all of them).
 */
async function createKeyFile(file: string): Promise<string> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, pem, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await readFile(file, 'utf8');
  } finally {
    await unlink(temporary);
  }
}

async function loadOrCreateKey(dir: string): Promise<{
  privateKey: CryptoKey;
  publicKey: KeyObject;
}> {
  const file = path.join(dir, JWT_KEY_FILE);
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    pem = await createKeyFile(file);
  }
  // Only tighten a too-open key: a read-only mounted secret that is already private stays as is.
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  const privateKey = await importPKCS8(pem, ALGORITHM, { extractable: true });
  return { privateKey, publicKey: createPublicKey(pem) };
}

export class TokenService {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: KeyObject,
    private readonly now: () => Date,
  ) {}

  static async open(dir: string, now: () => Date = () => new Date()): Promise<TokenService> {
    const { privateKey, publicKey } = await loadOrCreateKey(dir);
    return new TokenService(privateKey, publicKey, now);
  }

  async issue(input: IssueTokenInput): Promise<IssuedToken> {
    const iat = Math.floor(this.now().getTime() / 1000);
    const exp = iat + Math.max(1, Math.floor(input.ttlMs / 1000));
    const jti = randomUUID();
    const madeBy = input.madeBy === undefined ? {} : { made_by: input.madeBy };
    const builder = new SignJWT({ scope: input.scope, ...madeBy })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp);
    if (input.subject !== undefined) builder.setSubject(input.subject);
    const jwt = await builder.sign(this.privateKey);
    const claims: TokenClaims = { iss: ISSUER, scope: input.scope, jti, iat, exp, ...madeBy };
    if (input.subject !== undefined) claims.sub = input.subject;
    return { jwt, claims };
  }

  /**
   * An access token of the TAK enrollment face, shaped as TAK Server's: `sub` and `aud` the user
   * name, `nbf`, `iat`, `exp`, `jti`, all flat. Stock clients read its claims without a JWT
   * library (node-tak decodes the whole token as base64 and splits it at `}`), so the header is
   * exactly 27 bytes (a multiple of 3: the payload starts on a base64 boundary) and the payload
   * holds no nested object.
   */
  async issueTakEnrollment(
    access: TakEnrollmentAccess,
    expiresAt: Date,
  ): Promise<{ jwt: string; expiresInSeconds: number }> {
    const iat = Math.floor(this.now().getTime() / 1000);
    const exp = Math.max(iat + 1, Math.floor(expiresAt.getTime() / 1000));
    const jwt = await new SignJWT({ tak_token: access.binding })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(TAK_ENROLLMENT_ISSUER)
      .setSubject(access.callsign)
      .setAudience(access.callsign)
      .setNotBefore(iat)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.privateKey);
    return { jwt, expiresInSeconds: exp - iat };
  }

  /** What an unexpired access token of the TAK enrollment face says; otherwise undefined. */
  async verifyTakEnrollment(jwt: string): Promise<TakEnrollmentAccess | undefined> {
    try {
      const { payload } = await jwtVerify(jwt, this.publicKey, {
        algorithms: [ALGORITHM],
        issuer: TAK_ENROLLMENT_ISSUER,
        currentDate: this.now(),
        requiredClaims: ['sub', 'exp', 'tak_token'],
      });
      const { sub, tak_token: binding } = payload;
      if (typeof sub !== 'string' || typeof binding !== 'string') return undefined;
      return { callsign: sub, binding };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }

  /** The claims of a token this portal signed and that has not expired; otherwise undefined. */
  async verify(jwt: string): Promise<TokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify(jwt, this.publicKey, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        currentDate: this.now(),
        requiredClaims: ['jti', 'iat', 'exp'],
      });
      const scope = tokenScopeSchema.safeParse(payload.scope);
      if (!scope.success || typeof payload.jti !== 'string') return undefined;
      if (payload.sub !== undefined && typeof payload.sub !== 'string') return undefined;
      if (payload.made_by !== undefined && typeof payload.made_by !== 'string') return undefined;
      return payload as TokenClaims;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}
