import type { KeyEntry, KeyPurpose } from '@callsign/contract';
import { daysUntil, keyState } from '../../lib/key-names';

/**
 * When a member is told to renew: from 30 days before their newest key
 * expires, more urgently at 14, 7 and 3 days.
 */
export const RENEWAL_STAGES_DAYS = [30, 14, 7, 3] as const;
export type RenewalStage = (typeof RENEWAL_STAGES_DAYS)[number];

/** The keys a TAK client connects with: a package's, or one a device enrolled for. */
export const TAK_KEY_PURPOSES: readonly KeyPurpose[] = ['tak-package', 'tak-enroll'];

/** The live key (of `purposes`, any by default) that lasts longest: the one whose end counts. */
export function newestLiveKey(
  keys: readonly KeyEntry[],
  purposes?: readonly KeyPurpose[],
  now: Date = new Date(),
): KeyEntry | undefined {
  let newest: KeyEntry | undefined;
  for (const key of keys) {
    if (keyState(key, now) !== 'live') continue;
    if (purposes !== undefined && !purposes.includes(key.purpose)) continue;
    if (newest === undefined || Date.parse(key.expires_at) > Date.parse(newest.expires_at)) {
      newest = key;
    }
  }
  return newest;
}

/** The stage a key expiring at `expiresAt` is in now: the nearest mark not yet passed, or null. */
export function renewalStage(expiresAt: string, now: Date = new Date()): RenewalStage | null {
  const days = daysUntil(expiresAt, now);
  let stage: RenewalStage | null = null;
  for (const mark of RENEWAL_STAGES_DAYS) if (days <= mark) stage = mark;
  return stage;
}
