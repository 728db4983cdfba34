import { z } from 'zod';
import { codeField, isoTime, successTrue } from './fields.js';

/** GET enrollment/pools (admin): invite codes that are not deleted. */
export const poolsResponseSchema = z.object({
  pools: z.array(
    z.object({
      invitecode: z.string(),
      active: z.boolean(),
      created: isoTime,
      owner_cs: z.string().nullable(),
    }),
  ),
});

/** POST enrollment/invitecode/create (admin): no body. */
export const createInviteResponseSchema = z.object({ invite_code: z.string() });

/** PUT enrollment/invitecode/deactivate and activate (admin) */
export const inviteCodeBodySchema = z.strictObject({ invite_code: codeField });
export const inviteToggleResponseSchema = z.object({ success: successTrue });

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
