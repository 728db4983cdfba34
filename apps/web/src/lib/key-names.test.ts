import { describe, expect, it } from 'vitest';
import { daysUntil, formatDay } from './key-names';

const NOW = new Date('2026-11-24T12:00:00Z');

describe('key names', () => {
  it.each(['en', 'en-US', 'en-GB'])('writes days the British way for %s: "3 May"', (language) => {
    expect(formatDay('2026-05-03T12:00:00Z', language, NOW)).toBe('3 May');
  });

  it('writes Finnish days in Finnish, with the year only when it is not this one', () => {
    expect(formatDay('2026-05-03T12:00:00Z', 'fi', NOW)).toBe('3. toukokuuta');
    expect(formatDay('2027-05-03T12:00:00Z', 'fi-FI', NOW)).toBe('3. toukokuuta 2027');
  });

  it('counts whole days left, rounded up, and 0 once passed', () => {
    expect(daysUntil('2026-12-04T11:00:00Z', NOW)).toBe(10);
    expect(daysUntil('2026-11-20T12:00:00Z', NOW)).toBe(0);
  });
});
