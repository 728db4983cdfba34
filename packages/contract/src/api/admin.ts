import { z } from 'zod';
import { isoTime } from './fields.js';

/** GET admin/idm-console (admin, mTLS face): where the identity-management console lives. */
export const idmConsoleResponseSchema = z.object({
  idm_console_url: z.url(),
  /** Whether the operator set one up (a console URL or realm given); false: the default address. */
  configured: z.boolean(),
});

export type IdmConsoleResponse = z.infer<typeof idmConsoleResponseSchema>;

/** A relying party's last request: an OCSP request or a CRL fetch (product.md §13, presence). */
const revocationFetchSchema = z.object({
  at: isoTime,
  /** The client address it came from (a TAK Server's, behind the proxy: as the proxy says). */
  address: z.string().nullable(),
  age_seconds: z.number(),
});

/**
 * What the readiness card warns about: no OCSP request ever, or none for a day (no TAK Server
 * checks keys); no CRL fetch ever, or the last older than half the CRL's validity (a TAK Server's
 * copy lapses before long, and then it refuses everyone).
 */
export const TAK_PRESENCE_WARNINGS = [
  'no-ocsp-check',
  'ocsp-check-old',
  'no-crl-fetch',
  'crl-fetch-old',
] as const;
export type TakPresenceWarning = (typeof TAK_PRESENCE_WARNINGS)[number];

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
  /** Evidence that a TAK Server checks keys: its last OCSP request and CRL fetch. */
  presence: z.object({
    last_ocsp_check: revocationFetchSchema.nullable(),
    last_crl_fetch: revocationFetchSchema.nullable(),
    /** Half of `PORTAL_CRL_VALIDITY_DAYS`: a CRL fetch older than this is warned about. */
    crl_fetch_warn_after_seconds: z.number(),
    /** Members a TAK Server asked about a key of in the last 24 hours. */
    members_seen_last_day: z.int().min(0),
    warnings: z.array(z.enum(TAK_PRESENCE_WARNINGS)),
  }),
  /** The command that checks the rest against the TAK Server itself. */
  check_command: z.string(),
});

export type TakReadinessResponse = z.infer<typeof takReadinessResponseSchema>;
