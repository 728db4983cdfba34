import type { FastifyRequest } from 'fastify';
import { sameCallsign, type AuthType, type ErrorReason } from '@callsign/contract';
import type { TokenClaims, TokenService } from './token-service.js';

/**
 * Who is asking (docs/api.md): on the mTLS face the verified client certificate, on the public
 * face a valid bearer JWT. Nothing else identifies a request.
 */
export type Identity =
  | { type: Extract<AuthType, 'mtls'>; userid: string; payload: CertificatePayload }
  | { type: Extract<AuthType, 'jwt'>; userid: string | null; payload: TokenClaims };

export interface CertificatePayload {
  [claim: string]: unknown;
  sub: string;
  serial: string;
  not_after: string;
}

export interface MemberRecord {
  callsign: string;
  status: 'pending' | 'active' | 'rejected' | 'revoked';
  roles: string[];
}

export type MemberLookup = (callsign: string) => Promise<MemberRecord | undefined>;

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/**
 * Rules a signed, unexpired token must also meet, which only the database knows (e.g. an
 * enrollment token lapses 7 days after the decision). True when the token still counts.
 */
export type TokenPolicy = (claims: TokenClaims) => Promise<boolean>;

/** A token counts only while every one of `policies` says it does. */
export function everyPolicy(...policies: TokenPolicy[]): TokenPolicy {
  return async (claims) => {
    for (const policy of policies) if (!(await policy(claims))) return false;
    return true;
  };
}

/** Why a bearer token gets no key: the 403's detail and its reason for the web app. */
export interface KeyRefusal {
  detail: string;
  reason: ErrorReason;
}

/**
 * A rule a bearer token must also meet on a route that hands out a key (`config.handsOutKey`):
 * the refusal (403), or undefined when the token may have one.
 */
export type KeyTokenPolicy = (claims: TokenClaims) => Promise<KeyRefusal | undefined>;

export async function resolveIdentity(
  request: FastifyRequest,
  tokens: TokenService,
  policy: TokenPolicy = () => Promise.resolve(true),
): Promise<Identity | undefined> {
  if (request.face === 'mtls') {
    const certificate = request.clientCertificate;
    if (certificate?.status !== 'verified') return undefined;
    return {
      type: 'mtls',
      userid: certificate.callsign,
      payload: {
        sub: certificate.callsign,
        serial: certificate.serial,
        not_after: certificate.notAfter.toISOString(),
        ...(certificate.madeBy === null ? {} : { made_by: certificate.madeBy }),
      },
    };
  }
  const jwt = bearerToken(request);
  if (jwt === undefined) return undefined;
  const claims = await tokens.verify(jwt);
  if (claims === undefined || !(await policy(claims))) return undefined;
  return { type: 'jwt', userid: claims.sub ?? null, payload: claims };
}

export interface ValidUser {
  identity: Identity;
  member: MemberRecord;
}

/** A valid user is a member who exists and is not revoked; a pending enrollee is not one. */
export async function resolveValidUser(
  identity: Identity | undefined,
  members: MemberLookup,
): Promise<ValidUser | undefined> {
  if (identity?.userid == null) return undefined;
  const member = await members(identity.userid);
  if (member?.status !== 'active') return undefined;
  return { identity, member };
}

export function isAdmin(user: ValidUser): boolean {
  return user.member.roles.includes('admin');
}

/**
 * The admin whose code a key or session was minted through, when that is someone else than the
 * member (docs/api.md, "Admin power needs your own key"): such a key stays a member key, however
 * the member's roles change. Undefined for the member's own.
 */
export function mintedByAnother(user: ValidUser): string | undefined {
  const madeBy = user.identity.payload.made_by;
  if (typeof madeBy !== 'string' || sameCallsign(madeBy, user.member.callsign)) return undefined;
  return madeBy;
}
