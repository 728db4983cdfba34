/**
 * Why a refusal happened, as a word the web app puts into the reader's language: an error answer
 * may carry `reason` beside its English `detail` (docs/api.md, "Errors"). No zod here: the login
 * route reads it without the schemas.
 */
export const ERROR_REASONS = [
  /** 409: an admin asked to revoke or demote themselves. */
  'yourself',
  /** 409: the change would leave the unit without an active admin. */
  'last_admin',
  /** 409: a key, TAK enrollment or renewal code for another admin, made by an admin. */
  'admin_key_for_admin',
  /** 403: the sign-in's 24 hours of handing out keys are over (docs/api.md#sign-in-and-enrollment, shared devices). */
  'enrollment_keys_ended',
  /** 403: an admin call with a key minted through another admin's code (a member key). */
  'admin_needs_own_key',
  /** 403: a bearer token older than a fresh sign-in, or signed out, asked for an admin's key. */
  'admin_key_needs_fresh_sign_in',
  /** 409: a group LDAP sees as an existing one (any case, runs of spaces as one). */
  'group_exists',
] as const;

export type ErrorReason = (typeof ERROR_REASONS)[number];

/** True for a reason this contract knows (an older web app may meet a newer server's). */
export function isErrorReason(value: unknown): value is ErrorReason {
  return (ERROR_REASONS as readonly unknown[]).includes(value);
}
