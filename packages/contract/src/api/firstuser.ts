import { z } from 'zod';
import { callsignField, codeField } from './fields.js';

/** GET firstuser/check-code?temp_admin_code= */
export const checkAdminCodeQuerySchema = z.strictObject({ temp_admin_code: codeField });
export const checkAdminCodeResponseSchema = z.object({ code_ok: z.boolean() });

/** POST token/code/exchange: an admin code or an exchange code for a JWT. */
export const exchangeCodeBodySchema = z.strictObject({ code: codeField });
export const exchangeCodeResponseSchema = z.object({ jwt: z.string() });

/** POST firstuser/add-admin (first-admin JWT). */
export const addAdminBodySchema = z.strictObject({ callsign: callsignField });
export const addAdminResponseSchema = z.object({
  admin_added: z.literal(true),
  jwt_exchange_code: z.string(),
});

export type CheckAdminCodeResponse = z.infer<typeof checkAdminCodeResponseSchema>;
export type ExchangeCodeBody = z.input<typeof exchangeCodeBodySchema>;
export type ExchangeCodeResponse = z.infer<typeof exchangeCodeResponseSchema>;
export type AddAdminBody = z.input<typeof addAdminBodySchema>;
export type AddAdminResponse = z.infer<typeof addAdminResponseSchema>;
