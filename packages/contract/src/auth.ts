import { z } from 'zod';

/** The identity of a request (docs/api.md): a verified client certificate, else a bearer JWT. */
export const authTypeSchema = z.enum(['mtls', 'jwt']);
export type AuthType = z.infer<typeof authTypeSchema>;

export const tokenScopeSchema = z.enum(['first-admin', 'enrollment', 'member']);
export type TokenScope = z.infer<typeof tokenScopeSchema>;

/** GET /api/v1/check-auth/mtls_or_jwt, validuser and validuser/admin. */
export const checkAuthResponseSchema = z.object({
  type: authTypeSchema,
  userid: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
});
export type CheckAuthResponse = z.infer<typeof checkAuthResponseSchema>;

/** POST /api/v1/token/sign-out: the bearer token sent is ended on the server. */
export const signOutResponseSchema = z.object({ success: z.literal(true) });
export type SignOutResponse = z.infer<typeof signOutResponseSchema>;
