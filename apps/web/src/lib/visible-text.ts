import { UNSAFE_CHARACTER } from '@callsign/contract';

/**
 * Stored text as an admin reads it: a character that typed text never holds (stored before the
 * rule, or sent by a device) is shown as its code point, `⟨U+202E⟩`, instead of reordering or
 * hiding what follows it on screen.
 */
export function visibleText(text: string): string {
  return text.replace(UNSAFE_CHARACTER, (character) => {
    const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return `⟨U+${code}⟩`;
  });
}
