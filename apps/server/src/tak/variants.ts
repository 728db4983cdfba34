/** The three TAK settings packages (docs/tak.md), in the order the API lists them. */
export const TAK_VARIANTS = [
  { variant: 'atak', title: 'Other' },
  { variant: 'itak', title: 'iOS' },
  { variant: 'tak-tracker', title: 'tracker' },
] as const;

/** `atak` (ATAK and WinTAK), `itak` (iTAK), `tak-tracker` (TAK Tracker, Android and iOS). */
export type TakVariant = (typeof TAK_VARIANTS)[number]['variant'];
