import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { KeyTokenPolicy, TokenPolicy } from '../auth/identity.js';
import { findEnrollment } from './repository.js';

/**
 * An enrollment token keeps working until the enrollment is decided plus the grace period
 * (docs/api.md), so a member approved late can still download the key. It stops at once when
 * the enrollment no longer exists. Tokens of other scopes are not this policy's business.
 */
export function enrollmentTokenPolicy(
  db: Kysely<Database>,
  graceMs: number,
  now: () => Date,
): TokenPolicy {
  return async (claims) => {
    if (claims.scope !== 'enrollment') return true;
    if (claims.sub === undefined) return false;
    const enrollment = await findEnrollment(db, claims.sub);
    if (enrollment === undefined) return false;
    if (enrollment.decidedAt === null) return true;
    return now().getTime() < enrollment.decidedAt + graceMs;
  };
}

/** How long after the member's first key an enrollment token still hands out keys. */
export const ENROLLMENT_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * On a shared device the enrollment token stays in the browser after "Download your key"
 * (docs/api.md#sign-in-and-enrollment, "Shared devices"): it stops handing out keys 24 h after the member's first key
 * of any kind, revoked or not (`firstKeyAt`). After that the member uses their key on the mTLS
 * face, or an admin's renewal code. The grace period still ends the token as a whole (above).
 */
export function enrollmentKeyPolicy(
  firstKeyAt: (callsign: string) => Promise<number | undefined>,
  mtlsOrigin: string,
  now: () => Date,
): KeyTokenPolicy {
  return async (claims) => {
    if (claims.scope !== 'enrollment' || claims.sub === undefined) return undefined;
    const first = await firstKeyAt(claims.sub);
    if (first === undefined || now().getTime() < first + ENROLLMENT_KEY_WINDOW_MS) return undefined;
    return {
      detail:
        'This sign-in no longer hands out keys: 24 hours have passed since your first key. ' +
        `Use your key at ${mtlsOrigin}, or ask an admin for a renewal code.`,
      reason: 'enrollment_keys_ended',
    };
  };
}
