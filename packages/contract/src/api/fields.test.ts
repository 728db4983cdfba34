import { describe, expect, it } from 'vitest';
import { TYPED_LINE, TYPED_LINES } from './fields.js';

// What an admin reads must be what was stored: no control character (Unicode Cc: C0, DEL, C1),
// no bidi control that reorders what follows it, no invisible character that makes two texts
// look alike, no line or paragraph separator (issue 25, finding 7).

const REFUSED = {
  NUL: '\u0000',
  ESC: '\u001b',
  DEL: '\u007f',
  'NEL (C1)': '\u0085',
  'CSI (C1)': '\u009b',
  'ARABIC LETTER MARK': '\u061c',
  'ZERO WIDTH SPACE': '\u200b',
  'ZERO WIDTH NON-JOINER': '\u200c',
  'ZERO WIDTH JOINER': '\u200d',
  'LEFT-TO-RIGHT MARK': '\u200e',
  'RIGHT-TO-LEFT MARK': '\u200f',
  'LEFT-TO-RIGHT EMBEDDING': '\u202a',
  'RIGHT-TO-LEFT OVERRIDE': '\u202e',
  'LINE SEPARATOR': '\u2028',
  'PARAGRAPH SEPARATOR': '\u2029',
  'WORD JOINER': '\u2060',
  'LEFT-TO-RIGHT ISOLATE': '\u2066',
  'POP DIRECTIONAL ISOLATE': '\u2069',
  'BYTE ORDER MARK': '\ufeff',
};

describe('typed text', () => {
  it.each(Object.entries(REFUSED))('refuses %s on one line and over lines', (_name, character) => {
    for (const text of [character, `Team${character}A`, `gnp.exe${character}`]) {
      expect(TYPED_LINE.test(text)).toBe(false);
      expect(TYPED_LINES.test(text)).toBe(false);
    }
  });

  it('takes letters of every script, emoji, accents and spaces', () => {
    for (const text of ['Team A', 'Ryhmä Ö', 'فريق', 'צוות', '分隊 3', 'Ω-7 ✈', 'Team 🚁', '']) {
      expect(TYPED_LINE.test(text)).toBe(true);
      expect(TYPED_LINES.test(text)).toBe(true);
    }
  });

  it('keeps line breaks and tabs over lines only', () => {
    const reason = 'Not on the list.\r\nAsk your team lead.\t(ops)';
    expect(TYPED_LINES.test(reason)).toBe(true);
    expect(TYPED_LINE.test(reason)).toBe(false);
  });
});
