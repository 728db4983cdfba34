import { z } from 'zod';
import { callsignField, successTrue } from './fields.js';
import { revocationReceiptSchema } from './revocation.js';

export const ROLE_ADMIN = 'admin';

/** GET people/list (admin): active members with their roles. */
export const peopleListResponseSchema = z.object({
  callsign_list: z.array(z.object({ callsign: z.string(), roles: z.array(z.string()) })),
});

/** DELETE people/{callsign} (admin) */
export const callsignParamsSchema = z.strictObject({ callsign: callsignField });
export const revokePersonResponseSchema = z.object({
  success: successTrue,
  invite_code: z.string().nullable(),
  receipt: revocationReceiptSchema,
});

/** POST enrollment/promote and enrollment/demote (admin) */
export const roleChangeBodySchema = z.strictObject({ callsign: callsignField });
export const roleChangeResponseSchema = z.object({ success: successTrue, detail: z.string() });

export type PeopleListResponse = z.infer<typeof peopleListResponseSchema>;
export type RevokePersonResponse = z.infer<typeof revokePersonResponseSchema>;
export type RoleChangeBody = z.input<typeof roleChangeBodySchema>;
export type RoleChangeResponse = z.infer<typeof roleChangeResponseSchema>;
