import { z } from 'zod';
import { callsignField, isoTime, successTrue } from './fields.js';

/**
 * A member's keys over their life: every certificate issued to a member is one
 * of their keys, listed and revoked one at a time by the member or an admin.
 */

/** What a member's key is for: the browser .pfx, a TAK settings package, a TAK client's own key. */
export const KEY_PURPOSES = ['browser', 'tak-package', 'tak-enroll'] as const;
export const keyPurposeSchema = z.enum(KEY_PURPOSES);
export type KeyPurpose = z.infer<typeof keyPurposeSchema>;

/**
 * A certificate serial in a path: hexadecimal, as the list gives it (any case, at most 20 bytes
 * as RFC 5280 allows). The server compares it in its one textual form.
 */
export const serialField = z
  .string()
  .regex(/^[0-9A-Fa-f]{1,40}$/, { error: 'a certificate serial: hexadecimal digits' });

export const keyEntrySchema = z.object({
  serial: z.string(),
  purpose: keyPurposeSchema,
  issued_at: isoTime,
  expires_at: isoTime,
  revoked_at: isoTime.nullable(),
  /** The TAK client's own id, for keys a device enrolled for (`tak-enroll`); else null. */
  client_uid: z.string().nullable(),
  /** The key this request was made with (the mTLS face); never true for a bearer token. */
  current: z.boolean(),
  /**
   * The admin whose code the key was minted through (an enrollment station's TAK token, a
   * renewal code); null for a key the member got on their own.
   */
  made_by: z.string().nullable(),
  /** When a TAK Server last asked the portal's OCSP responder about this key; null: never. */
  last_checked_at: isoTime.nullable(),
  /** The address that asked (admins only: left out of a member's own list). */
  last_checked_from: z.string().nullable().optional(),
});
export type KeyEntry = z.infer<typeof keyEntrySchema>;

/** GET me/keys (valid user) and GET people/{callsign}/keys (admin): newest first. */
export const keyListResponseSchema = z.object({
  keys: z.array(keyEntrySchema),
  /** When a TAK Server last asked about any key of the member (OCSP); null: never. */
  last_seen_tak_at: isoTime.nullable(),
  /**
   * During a CA rollover, the date by which the member should get a new key: one of theirs is
   * still on the issuing CA being retired (docs/operations.md#rolling-the-issuing-ca-over). Null otherwise.
   */
  renew_ca_by: isoTime.nullable(),
});
export type KeyListResponse = z.infer<typeof keyListResponseSchema>;

/** DELETE me/keys/{serial} */
export const ownKeyParamsSchema = z.strictObject({ serial: serialField });
/** DELETE people/{callsign}/keys/{serial} (admin) */
export const personKeyParamsSchema = z.strictObject({
  callsign: callsignField,
  serial: serialField,
});
export const revokeKeyResponseSchema = z.object({ success: successTrue });
export type RevokeKeyResponse = z.infer<typeof revokeKeyResponseSchema>;

/** The windows an admin looks ahead by; the query takes any number of days in range. */
export const EXPIRING_WINDOW_DAYS = { default: 30, max: 3650 } as const;

/** GET admin/expiring?days=N (admin) */
export const expiringQuerySchema = z.strictObject({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(EXPIRING_WINDOW_DAYS.max)
    .default(EXPIRING_WINDOW_DAYS.default),
});
/**
 * Active members whose newest unrevoked key expires within the window (already expired ones
 * included: they need a renewal code), soonest first.
 */
export const expiringResponseSchema = z.object({
  members: z.array(z.object({ callsign: z.string(), expires_at: isoTime })),
});
export type ExpiringResponse = z.infer<typeof expiringResponseSchema>;

/**
 * POST people/{callsign}/renewal-code (admin): a single-use code that signs an active member (not
 * an admin) in again without a new enrollment. Entered on /login like an invite code. A member
 * who still holds live keys (unexpired, unrevoked: a lost phone) needs `revoke_keys: true`, which
 * revokes them with the code; without it the answer is 409. No body is the same as `{}`.
 */
export const renewalCodeBodySchema = z
  .strictObject({ revoke_keys: z.boolean().optional() })
  .nullish();
export type RenewalCodeBody = z.input<typeof renewalCodeBodySchema>;
export const renewalCodeResponseSchema = z.object({
  renewal_code: z.string(),
  expires_at: isoTime,
  /** How many live keys of the member were revoked with the code. */
  keys_revoked: z.int().min(0),
});
export type RenewalCodeResponse = z.infer<typeof renewalCodeResponseSchema>;

const caCertificateSchema = z.object({ subject: z.string(), expires_at: isoTime });

/** One CA of the chain the portal's keys hang from. */
const caChainEntrySchema = caCertificateSchema.extend({
  /** This CA signs the members' keys (the first of the chain). */
  signs_members: z.boolean(),
  /** A root: the trust anchor at the top (the last of the chain). */
  self_signed: z.boolean(),
});

/**
 * GET admin/ca (admin): when the portal's CAs expire (nothing renews them by itself), and the
 * whole chain, issuing CA first: the portal's two, or an adopted CA's (`ca adopt`), up to its root.
 */
/** What the operator does next about the issuing CA (docs/operations.md). */
export const CA_NEXT_STEPS = ['nothing', 'begin', 'renew', 'finish', 'new-root'] as const;

/**
 * The issuing CA's rollover (docs/operations.md#rolling-the-issuing-ca-over): `none` (one issuing CA trusted) or `overlap`
 * (`ca rollover begin` made a new one that signs new keys; the one before is trusted still until
 * `ca rollover finish`).
 */
export const caRolloverSchema = z.object({
  state: z.enum(['none', 'overlap']),
  /** The issuing CA new keys come from: 1 the first, 2 after the first rollover, … */
  generation: z.int().min(1),
  /** False when the adopted CA signs members itself: no root key to make another issuing CA. */
  can_roll_over: z.boolean(),
  begun_at: isoTime.nullable(),
  /** The date members on the old CA are asked to renew by (their banner's). */
  renew_by: isoTime.nullable(),
  /** When the last rollover finished; null before any or during one. */
  finished_at: isoTime.nullable(),
  /** The issuing CA being retired, during the overlap. */
  previous: caCertificateSchema.extend({ generation: z.int().min(1) }).nullable(),
  /** Members with a live key of the old CA they have not renewed. */
  members_on_previous: z.int().min(0),
  /** Live member keys of the old CA not renewed: `finish` refuses while any. */
  keys_on_previous: z.int().min(0),
  /**
   * `begin` (the issuing CA has less than 400 days left), `renew` (members still on the old CA),
   * `finish`, `new-root` (the root itself nears its end: docs/operations.md) or `nothing`.
   */
  next: z.enum(CA_NEXT_STEPS),
});
export type CaRollover = z.infer<typeof caRolloverSchema>;

export const caExpiryResponseSchema = z.object({
  issuing: caCertificateSchema,
  root: caCertificateSchema,
  chain: z.array(caChainEntrySchema).min(1),
  rollover: caRolloverSchema,
});
export type CaExpiryResponse = z.infer<typeof caExpiryResponseSchema>;
