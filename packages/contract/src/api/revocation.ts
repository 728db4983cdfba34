import { z } from 'zod';
import { isoTime } from './fields.js';

/**
 * What a member's revocation changed, as relying parties now see it: read back from the CRL the
 * portal publishes and from its OCSP responder, not assumed from the revocation itself.
 */
export const revocationReceiptSchema = z.object({
  /** Certificates this revocation revoked. */
  certificates_revoked: z.int().nonnegative(),
  /** The CRL published after it; null when it could not be signed or read. */
  crl: z
    .object({
      /** The CRL number, in decimal (it exceeds a JSON number's exact range in general). */
      number: z.string().regex(/^\d+$/),
      this_update: isoTime,
      next_update: isoTime,
      /** How many of the revoked certificates the signed CRL lists. */
      lists_revoked: z.int().nonnegative(),
    })
    .nullable(),
  /** The member's newest certificate; null when they never had one. */
  newest_serial: z.string().nullable(),
  /** The portal's OCSP responder's verified answer about it; null when it could not be asked. */
  ocsp: z
    .object({
      status: z.enum(['good', 'revoked', 'unknown']),
      revoked_at: isoTime.nullable(),
      produced_at: isoTime,
    })
    .nullable(),
});

export type RevocationReceipt = z.infer<typeof revocationReceiptSchema>;
