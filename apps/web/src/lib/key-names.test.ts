import type { TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import type { KeyEntry } from '@callsign/contract';
import { daysUntil, formatDay, keyName, whatStopsWorking } from './key-names';

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

  it('shows a device id’s bidi control or invisible character as its code point', () => {
    // An id an older portal stored; the device chose it, an admin reads it.
    const key: KeyEntry = {
      serial: '0a',
      purpose: 'tak-enroll',
      issued_at: '2026-05-03T12:00:00.000Z',
      expires_at: '2027-05-03T12:00:00.000Z',
      revoked_at: null,
      client_uid: 'ANDROID-\u202eexe.gnp\u200b',
      current: false,
      made_by: null,
      last_checked_at: null,
    };
    const t = ((name: string, values: { device: string }) =>
      `${name}(${values.device})`) as unknown as TFunction;
    expect(keyName(t, key, 'en', NOW)).toBe(
      'keys.names.tak_enroll_device(ANDROID-⟨U+202E⟩exe.gnp⟨U+200B⟩)',
    );
    expect(whatStopsWorking(t, key)).toBe('keys.stops.tak_enroll(ANDROID-⟨U+202E⟩exe.gnp⟨U+200B⟩)');
  });
});
