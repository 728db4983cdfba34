import type { Identity, ValidUser } from './identity.js';

/** Who acts, as the audit log records it. */
export interface Actor {
  callsign: string;
  clientAddress: string | null;
  /**
   * The admin whose code this member's session or key rests on (a renewal code, an enrollment
   * station's TAK token): every key minted for the member through it records them (`made_by`).
   */
  madeBy?: string;
}

/** The admin whose code an identity rests on: a renewal code's session, or a key it minted. */
export function codeMakerOf(identity: Identity): string | undefined {
  const madeBy = identity.payload.made_by;
  return typeof madeBy === 'string' ? madeBy : undefined;
}

export function actorOf(user: ValidUser, clientAddress: string | null): Actor {
  const madeBy = codeMakerOf(user.identity);
  return {
    callsign: user.member.callsign,
    clientAddress,
    ...(madeBy === undefined ? {} : { madeBy }),
  };
}
