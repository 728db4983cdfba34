/**
 * Business constants (lengths, limits) and the code alphabet (docs/api.md).
 * Server and web app both validate with these, so the rules cannot drift apart.
 */

/** Letters and digits a person cannot confuse when reading a code aloud: no 0, O, 1, I. */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export const CODE_LENGTH = {
  admin: 12,
  exchange: 12,
  invite: 8,
  /** An invite that approves at once (bulk slips, auto_approve): the guess ceiling's arithmetic. */
  autoApprove: 12,
  approval: 8,
  renewal: 8,
} as const;

/** Client-side login code rule: at least 8 of A-Z and 0-9. */
export const LOGIN_CODE_PATTERN = /^[A-Z0-9]{8,}$/;
/** No code the portal makes is longer; anything longer is refused before it reaches a query. */
export const LOGIN_CODE_MAX_LENGTH = 64;

export const CALLSIGN_MIN_LENGTH = 3;
export const CALLSIGN_MAX_LENGTH = 30;
export const CALLSIGN_PATTERN = /^[A-Za-z0-9]+$/;

/**
 * Names a TAK Server or this portal uses for itself: nobody takes them as a callsign, in any case
 * (an operator adds more with PORTAL_RESERVED_CALLSIGNS).
 */
export const RESERVED_CALLSIGNS = [
  'admin',
  'administrator',
  'webadmin',
  'takserver',
  'tak',
  'root',
  'system',
  'anonymous',
  'anon',
  'nobody',
] as const;

/**
 * The 400 detail of enroll and add-admin for a reserved callsign; the web app shows its own text.
 * Here, not in errors.ts: the login route imports it, and errors.ts brings zod (27 KB gzip) into
 * the route's initial JavaScript (budget 70 KB, bench/ section 3).
 */
export const RESERVED_CALLSIGN_DETAIL =
  'This callsign is reserved for the TAK Server or the portal itself; choose another one';

/**
 * Why an invite code that exists admits nobody: the invite check's `invitecode_state` and the
 * 400 detail of enroll (`INVITE_REFUSAL_DETAIL`). Here for the same reason as above: the login
 * route tells the cases apart.
 */
export const INVITE_REFUSALS = ['deactivated', 'expired', 'used-up'] as const;
export type InviteRefusal = (typeof INVITE_REFUSALS)[number];
export const INVITE_REFUSAL_DETAIL: Record<InviteRefusal, string> = {
  deactivated: 'Invite code deactivated',
  expired: 'Invite code expired',
  'used-up': 'Invite code used up',
};

/**
 * "Create new code" in the admin area: a code that expires in a week and admits 25 people, unless
 * the admin chooses otherwise (a reusable code that never expires is a choice, not the default).
 * The API's create without a body stays the spec's plain reusable code.
 */
export const INVITE_DEFAULT_VALID_DAYS = 7;
export const INVITE_DEFAULT_MAX_USES = 25;

export const ACCEPTANCE_POLL_INTERVAL_MS = 5000;
export const COPIED_INDICATOR_MS = 2000;
