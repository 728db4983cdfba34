import {
  DEFAULT_PRESET,
  TAK_ROLES,
  TAK_TEAMS,
  type Preset,
  type TakRole,
  type TakTeam,
} from '@callsign/contract';

/** The stored team if it is one of ATAK's, else null. */
export function asTeam(value: string | null): TakTeam | null {
  return TAK_TEAMS.find((team) => team === value) ?? null;
}

/** The stored role if it is one of ATAK's, else null. */
export function asRole(value: string | null): TakRole | null {
  return TAK_ROLES.find((role) => role === value) ?? null;
}

/** A preset as stored, with ATAK's default for a value that is missing or not on ATAK's lists. */
export function presetOf(team: string | null, role: string | null): Preset {
  return { team: asTeam(team) ?? DEFAULT_PRESET.team, role: asRole(role) ?? DEFAULT_PRESET.role };
}
