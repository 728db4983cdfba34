import type { RevocationReason } from '../../ca/crl.js';

/**
 * The RFC 5280 reason code an OCSP answer gives for each reason the portal records with a
 * revocation (docs/api.md, "The OCSP responder"). Unspecified ones are left out of the answer, as
 * RFC 5280 5.3.1 asks; so is any reason not listed here.
 */
const REASON_CODES: Record<string, RevocationReason> = {
  // A key pushed past the member's bound, renewed during a rollover, or replaced by a renewal code.
  superseded: 'superseded',
  'renewal code': 'superseded',
  // A rollover finished without the key being renewed.
  cessationOfOperation: 'cessationOfOperation',
  // The member was revoked: they left the unit.
  'member revoked': 'affiliationChanged',
};

export function revocationReasonCode(recorded: string | null): RevocationReason | undefined {
  return recorded === null ? undefined : REASON_CODES[recorded];
}
