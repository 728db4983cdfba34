import { describe, expect, it } from 'vitest';
import type { KeyEntry } from '@callsign/contract';
import { newestLiveKey, renewalStage, TAK_KEY_PURPOSES } from './renewal';

const NOW = new Date('2026-05-03T12:00:00Z');
const DAY = 86_400_000;
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();

function key(serial: string, purpose: KeyEntry['purpose'], expiresIn: number, revoked = false) {
  return {
    serial,
    purpose,
    issued_at: inDays(-300),
    expires_at: inDays(expiresIn),
    revoked_at: revoked ? inDays(-1) : null,
    client_uid: null,
    current: false,
    made_by: null,
    last_checked_at: null,
  } satisfies KeyEntry;
}

describe('renewal', () => {
  it.each([
    [31, null],
    [30.5, null],
    [30, 30],
    [15, 30],
    [14, 14],
    [10, 14],
    [8, 14],
    [7, 7],
    [4, 7],
    [3, 3],
    [0.2, 3],
  ])('a key expiring in %s days is at stage %s', (days, stage) => {
    expect(renewalStage(inDays(days), NOW)).toBe(stage);
  });

  it('counts the live key that lasts longest; revoked and expired ones do not count', () => {
    const keys = [
      key('a', 'browser', 10),
      key('b', 'tak-package', 200, true),
      key('c', 'tak-package', 40),
      key('d', 'browser', -2),
    ];
    expect(newestLiveKey(keys, undefined, NOW)?.serial).toBe('c');
    expect(newestLiveKey(keys, ['browser'], NOW)?.serial).toBe('a');
    expect(newestLiveKey([key('e', 'browser', 5)], TAK_KEY_PURPOSES, NOW)).toBeUndefined();
  });
});
