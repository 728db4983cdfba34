import { z } from 'zod';

/** GET admin/idm-console (admin, mTLS face): where the identity-management console lives. */
export const idmConsoleResponseSchema = z.object({ idm_console_url: z.url() });

export type IdmConsoleResponse = z.infer<typeof idmConsoleResponseSchema>;
