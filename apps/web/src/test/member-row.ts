import type { MemberRow } from '@callsign/contract';

/** An active member as the members table lists them, for the admin pages' tests. */
export function memberRow(callsign: string, admin: boolean): MemberRow {
  return {
    callsign,
    admin,
    state: 'active',
    team: 'Cyan',
    role: 'Team Member',
    groups: [],
    enrolled_at: '2026-11-01T10:00:00.000Z',
    key_expires_at: null,
    last_seen_tak_at: null,
  };
}
