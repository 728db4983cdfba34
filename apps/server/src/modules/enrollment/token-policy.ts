import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { TokenPolicy } from '../auth/identity.js';
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
