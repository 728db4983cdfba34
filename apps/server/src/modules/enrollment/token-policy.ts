import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { TokenPolicy } from '../auth/identity.js';

/**
 * An enrollment token keeps working until the enrollment is decided plus the grace period
 * (product.md §2), so a member approved late can still download the key.
 */
export function enrollmentTokenPolicy(
  _db: Kysely<Database>,
  _graceMs: number,
  _now: () => Date,
): TokenPolicy {
  // Filled by the API issue: look up the enrollment of claims.sub for scope 'enrollment'.
  return () => Promise.resolve(true);
}
