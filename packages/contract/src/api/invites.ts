import { z } from 'zod';
import { groupDirectionSchema, groupMembershipsField } from './groups.js';
import { codeField, isoTime, NO_CONTROL_CHARACTERS, successTrue, TYPED_LINE } from './fields.js';
import { takRoleSchema, takTeamSchema } from './onboarding.js';

/** Where an invite code stands: it admits people only while `active`. */
export const inviteStateSchema = z.enum(['active', 'deactivated', 'expired', 'used-up']);
export type InviteState = z.infer<typeof inviteStateSchema>;

/**
 * GET enrollment/pools (admin): invite codes that are not deleted. The spec's fields first, then
 * the options of docs/api.md, "Onboarding a unit"; `batch_id` and `reserved_callsign` mark the slips of a bulk call.
 */
export const poolsResponseSchema = z.object({
  pools: z.array(
    z.object({
      invitecode: z.string(),
      active: z.boolean(),
      created: isoTime,
      owner_cs: z.string().nullable(),
      state: inviteStateSchema,
      label: z.string().nullable(),
      expires_at: isoTime.nullable(),
      max_uses: z.number().int().nullable(),
      uses: z.number().int(),
      auto_approve: z.boolean(),
      team: takTeamSchema.nullable(),
      role: takRoleSchema.nullable(),
      reserved_callsign: z.string().nullable(),
      batch_id: z.string().nullable(),
      /** The groups its members get at enrollment (docs/directory.md). */
      groups: z.array(z.object({ name: z.string(), direction: groupDirectionSchema })),
    }),
  ),
});

/** The longest label an invite code may carry. */
export const INVITE_LABEL_MAX_LENGTH = 100;

/**
 * POST enrollment/invitecode/create (admin). No body (as the spec's client sends it): a plain,
 * reusable code that needs approval. Each option is optional; `null` is the same as leaving it
 * out. Without `team` or `role` the member gets the default one.
 */
export const createInviteBodySchema = z
  .strictObject({
    label: z
      .string()
      .trim()
      .max(INVITE_LABEL_MAX_LENGTH)
      .regex(TYPED_LINE, NO_CONTROL_CHARACTERS)
      .transform((value) => (value === '' ? null : value))
      .nullish(),
    expires_at: isoTime.nullish(),
    max_uses: z.int().min(1).max(1_000_000).nullish(),
    auto_approve: z.boolean().optional(),
    team: takTeamSchema.nullish(),
    role: takRoleSchema.nullish(),
    /** The groups its members get at enrollment (docs/directory.md); each must exist. */
    groups: groupMembershipsField.nullish(),
  })
  .nullish();
export type CreateInviteBody = z.input<typeof createInviteBodySchema>;
export const createInviteResponseSchema = z.object({ invite_code: z.string() });

/** PUT enrollment/invitecode/deactivate and activate (admin) */
export const inviteCodeBodySchema = z.strictObject({ invite_code: codeField });
export const inviteToggleResponseSchema = z.object({
  success: successTrue,
  /**
   * activate only, when the code's owner was no longer an active admin: the activating admin
   * took the code over from them (null: it had no owner), so it approves in their name now.
   */
  owner_transferred_from: z.string().nullable().optional(),
});

/** DELETE enrollment/invitecode/{code} (admin) */
export const inviteCodeParamsSchema = z.strictObject({ code: codeField });
export const deleteInviteResponseSchema = z.object({
  success: successTrue,
  invite_code: z.string(),
});

export type PoolsResponse = z.infer<typeof poolsResponseSchema>;
export type CreateInviteResponse = z.infer<typeof createInviteResponseSchema>;
export type InviteCodeBody = z.input<typeof inviteCodeBodySchema>;
export type InviteToggleResponse = z.infer<typeof inviteToggleResponseSchema>;
export type DeleteInviteResponse = z.infer<typeof deleteInviteResponseSchema>;
