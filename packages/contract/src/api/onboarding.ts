import { z } from 'zod';
import { groupMembershipsField } from './groups.js';
import { CALLSIGN_MAX_LENGTH } from '../limits.js';
import { isoTime } from './fields.js';

/** ATAK's team colours, as ATAK names them in `locationTeam` (docs/api.md, "Onboarding a unit"). */
export const TAK_TEAMS = [
  'White',
  'Yellow',
  'Orange',
  'Magenta',
  'Red',
  'Maroon',
  'Purple',
  'Dark Blue',
  'Blue',
  'Cyan',
  'Teal',
  'Green',
  'Dark Green',
  'Brown',
] as const;

/** ATAK's roles, as ATAK names them in `atakRoleType`. */
export const TAK_ROLES = [
  'Team Member',
  'Team Lead',
  'HQ',
  'Sniper',
  'Medic',
  'Forward Observer',
  'RTO',
  'K9',
] as const;

export const takTeamSchema = z.enum(TAK_TEAMS);
export const takRoleSchema = z.enum(TAK_ROLES);
export type TakTeam = z.infer<typeof takTeamSchema>;
export type TakRole = z.infer<typeof takRoleSchema>;

/** What a member has until an invite or an admin gives them another: ATAK's own defaults. */
export const DEFAULT_PRESET = { team: 'Cyan', role: 'Team Member' } as const satisfies {
  team: TakTeam;
  role: TakRole;
};

/** A member's TAK preset: team colour and role. */
export const presetSchema = z.strictObject({ team: takTeamSchema, role: takRoleSchema });
export type Preset = z.infer<typeof presetSchema>;

/** GET people/{callsign}/preset (admin), PUT it (admin), GET me/preset (the member). */
export const presetResponseSchema = z.object({
  callsign: z.string(),
  team: takTeamSchema,
  role: takRoleSchema,
});
export type PresetResponse = z.infer<typeof presetResponseSchema>;

/** Most slips one bulk call makes (docs/api.md, "Onboarding a unit"). */
export const BULK_MAX_CALLSIGNS = 500;
/** How long slips admit their member unless the admin says otherwise. */
export const BULK_DEFAULT_VALID_HOURS = 72;
/** The longest a slip may stay valid: a use-once link is a credential. */
export const BULK_MAX_VALID_HOURS = 30 * 24;

/**
 * The callsigns of a bulk call as typed: any text, so that every one that is not a valid callsign
 * can be named in one answer instead of failing the whole body as malformed.
 */
const bulkCallsigns = z
  .array(z.string().max(CALLSIGN_MAX_LENGTH * 4))
  .min(1)
  .max(BULK_MAX_CALLSIGNS);

/** POST enrollment/bulk (admin): one single-use, auto-approving slip per callsign. */
export const bulkBodySchema = z.strictObject({
  callsigns: bulkCallsigns,
  team: takTeamSchema.default(DEFAULT_PRESET.team),
  role: takRoleSchema.default(DEFAULT_PRESET.role),
  valid_hours: z.int().min(1).max(BULK_MAX_VALID_HOURS).default(BULK_DEFAULT_VALID_HOURS),
  /** The groups each member of the batch gets at enrollment (docs/directory.md). */
  groups: groupMembershipsField.default([]),
});
export type BulkBody = z.input<typeof bulkBodySchema>;

const slipSchema = z.object({
  callsign: z.string(),
  invite_code: z.string(),
  /** The invite link on the public face: what the slip's QR code holds. */
  link: z.string(),
});

export const bulkResponseSchema = z.object({
  batch_id: z.string(),
  expires_at: isoTime,
  slips: z.array(slipSchema),
});
export type BulkResponse = z.infer<typeof bulkResponseSchema>;

/** Why a callsign of a bulk list cannot have a slip. */
export const callsignProblemSchema = z.enum(['invalid', 'taken', 'duplicate']);
export type CallsignProblem = z.infer<typeof callsignProblemSchema>;

/** POST enrollment/bulk/check (admin): the preview; creates nothing. */
export const bulkCheckBodySchema = z.strictObject({ callsigns: bulkCallsigns });
export const bulkCheckResponseSchema = z.object({
  callsigns: z.array(z.object({ callsign: z.string(), problem: callsignProblemSchema.nullable() })),
});
export type BulkCheckResponse = z.infer<typeof bulkCheckResponseSchema>;

/**
 * Where a slip stands: `issued` (not used yet), `enrolled` (its member enrolled), `key` (its
 * member has been issued a key), `revoked` (its member was revoked); a slip never used is `void`
 * once voided or deleted and `expired` past its time.
 */
export const slipStateSchema = z.enum(['issued', 'enrolled', 'key', 'revoked', 'void', 'expired']);
export type SlipState = z.infer<typeof slipStateSchema>;

/** GET enrollment/bulk/{batch_id} and POST enrollment/bulk/{batch_id}/void (admin). */
export const batchParamsSchema = z.strictObject({
  batch_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9-]+$/),
});

export const batchResponseSchema = z.object({
  batch_id: z.string(),
  created: isoTime,
  owner_cs: z.string().nullable(),
  team: takTeamSchema,
  role: takRoleSchema,
  expires_at: isoTime,
  slips: z.array(slipSchema.extend({ state: slipStateSchema })),
});
export type BatchResponse = z.infer<typeof batchResponseSchema>;

export const voidBatchResponseSchema = z.object({
  /** The slips this call voided (the ones never used and still live). */
  voided: z.number().int(),
});
export type VoidBatchResponse = z.infer<typeof voidBatchResponseSchema>;
