import type { ValidUser } from './identity.js';

/** Who acts, as the audit log records it. */
export interface Actor {
  callsign: string;
  clientAddress: string | null;
}

export function actorOf(user: ValidUser, clientAddress: string | null): Actor {
  return { callsign: user.member.callsign, clientAddress };
}
