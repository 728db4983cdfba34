import { z } from 'zod';
import { isoTime } from './fields.js';

/** GET admin/idm-console (admin, mTLS face): where the identity-management console lives. */
export const idmConsoleResponseSchema = z.object({ idm_console_url: z.url() });

export type IdmConsoleResponse = z.infer<typeof idmConsoleResponseSchema>;

/** GET admin/tak-readiness (admin): the TAK side as the portal itself can see it. */
export const takReadinessResponseSchema = z.object({
  tak: z.object({ host: z.string(), port: z.number().int() }),
  truststore: z.object({
    /** `portal-ca`: the portal's CA chain; `file`: PORTAL_TAK_TRUSTSTORE_PEM. */
    source: z.enum(['portal-ca', 'file']),
    file: z.string().nullable(),
    certificates: z.array(
      z.object({
        subject: z.string(),
        issuer: z.string(),
        not_after: isoTime,
        expired: z.boolean(),
      }),
    ),
    /** Why the certificates could not be read (the file went missing); null when they were. */
    error: z.string().nullable(),
  }),
  crl: z.object({
    /** Decimal. */
    number: z.string(),
    this_update: isoTime,
    next_update: isoTime,
    age_seconds: z.number(),
    url: z.string(),
  }),
  /** The command that checks the rest against the TAK Server itself. */
  check_command: z.string(),
});

export type TakReadinessResponse = z.infer<typeof takReadinessResponseSchema>;
