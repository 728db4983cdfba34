import { z } from 'zod';
import { isoTime } from './fields.js';

/** GET admin/idm-console (admin, mTLS face): where the identity-management console lives. */
export const idmConsoleResponseSchema = z.object({
  idm_console_url: z.url(),
  /** Whether the operator set one up (a console URL or realm given); false: the default address. */
  configured: z.boolean(),
});

export type IdmConsoleResponse = z.infer<typeof idmConsoleResponseSchema>;

/** A relying party's last request: an OCSP request or a CRL fetch (docs/operations.md#tak-readiness, presence). */
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

/**
 * Whether phones trust the TAK enrollment face by themselves (docs/tak.md#one-scan-enrollment-the-tak-enrollment-face): `root`, its
 * certificate chains to a root ATAK trusts; `setting`, behind the proxy, as
 * `PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED` says; otherwise why not: `unknown-root` (it chains to
 * another CA, the portal's own by default), `wrong-host` (not for the TAK host), `expired`,
 * `not-a-chain`, `no-certificate`.
 */
export const TAK_ENROLLMENT_TRUST_BASES = [
  'root',
  'setting',
  'unknown-root',
  'wrong-host',
  'expired',
  'not-a-chain',
  'no-certificate',
] as const;

/**
 * What the readiness card warns about the enrollment face: its public port is not 8446 (ATAK
 * always enrolls there), phones need the trust package before the QR code works.
 */
export const TAK_ENROLLMENT_WARNINGS = ['port-not-8446', 'phones-need-trust-package'] as const;
export type TakEnrollmentWarning = (typeof TAK_ENROLLMENT_WARNINGS)[number];

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
  /** The TAK enrollment face as phones reach it; null while it is off. */
  enrollment: z
    .object({
      host: z.string(),
      /** The port TAK clients reach (`PORTAL_TAK_ENROLL_PUBLIC_PORT`; nginx's in proxy mode). */
      port: z.number().int(),
      trusted_by_phones: z.boolean(),
      trust_basis: z.enum(TAK_ENROLLMENT_TRUST_BASES),
      /** The root it chains to (`root`). */
      root: z.string().nullable(),
      /** The issuer its chain stops at (`unknown-root`). */
      chain_end: z.string().nullable(),
      warnings: z.array(z.enum(TAK_ENROLLMENT_WARNINGS)),
    })
    .nullable(),
});

export type TakReadinessResponse = z.infer<typeof takReadinessResponseSchema>;
