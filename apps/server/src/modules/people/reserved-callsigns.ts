import { RESERVED_CALLSIGN_DETAIL } from '@callsign/contract';
import { BadRequestError } from '../../errors.js';

/**
 * Refuses (400) a callsign a TAK Server or this portal uses for itself (docs/api.md#sign-in-and-enrollment), in any
 * case; `reserved` is `Config.reservedCallsigns` (lower-cased). Not a failed guess: the list is
 * no secret.
 */
export function refuseReservedName(callsign: string, reserved: readonly string[]): void {
  if (reserved.includes(callsign.toLowerCase())) {
    throw new BadRequestError(RESERVED_CALLSIGN_DETAIL);
  }
}
