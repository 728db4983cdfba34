import type { TFunction } from 'i18next';
import type { KeyEntry } from '@callsign/contract';
import { visibleText } from './visible-text';

/**
 * How a key is named to people: what it is for and when it was made, in the
 * language of the page ("Browser key, downloaded 3 May", "TAK enrollment, device …"), and what
 * state it is in. Shared by the member's own key page and the admin's view of a member.
 */

const DAY_MS = 86_400_000;

/**
 * The app's English is British English: dates read "3 May", not "May 3", whichever English the
 * browser asked for (the detected language may be `en-US`).
 */
export function dateLocale(language: string): string {
  return language === 'en' || language.startsWith('en-') ? 'en-GB' : language;
}

/** A day of the year in the UI language; the year only when it is not this year's. */
export function formatDay(iso: string, language: string, now: Date = new Date()): string {
  const date = new Date(iso);
  const sameYear = date.getFullYear() === now.getFullYear();
  return new Intl.DateTimeFormat(dateLocale(language), {
    day: 'numeric',
    month: 'long',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(date);
}

/** Whole days from `now` until `iso`, rounded up: 0 once it has passed. */
export function daysUntil(iso: string, now: Date = new Date()): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - now.getTime()) / DAY_MS));
}

export type KeyState = 'live' | 'revoked' | 'expired';

export function keyState(key: KeyEntry, now: Date = new Date()): KeyState {
  if (key.revoked_at !== null) return 'revoked';
  return Date.parse(key.expires_at) <= now.getTime() ? 'expired' : 'live';
}

/** The key's name: "Browser key, downloaded 3 May", "TAK enrollment, device ANDROID-…, 3 May". */
export function keyName(t: TFunction, key: KeyEntry, language: string, now?: Date): string {
  const date = formatDay(key.issued_at, language, now);
  switch (key.purpose) {
    case 'browser':
      return t('keys.names.browser', { date });
    case 'tak-package':
      return t('keys.names.tak_package', { date });
    case 'tak-enroll':
      return key.client_uid === null
        ? t('keys.names.tak_enroll', { date })
        : t('keys.names.tak_enroll_device', { date, device: visibleText(key.client_uid) });
  }
}

/** The time of day, hours and minutes, in the UI language: "14:05", "14.05". */
export function formatTimeOfDay(iso: string, language: string): string {
  return new Intl.DateTimeFormat(dateLocale(language), {
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));
}

/** How many hex digits of the serial number tell a member's keys apart. */
const SERIAL_TAIL_LENGTH = 6;

/**
 * What tells two keys of one day apart: the time it was made and the end of its serial number
 * ("made at 14:05, serial number …3F9A0C").
 */
export function keyTellApart(t: TFunction, key: KeyEntry, language: string): string {
  return t('keys.made_at', {
    time: formatTimeOfDay(key.issued_at, language),
    serial: key.serial.slice(-SERIAL_TAIL_LENGTH).toUpperCase(),
  });
}

/** The key's name with what tells it apart, for a button or dialog that names one key. */
export function keyFullName(t: TFunction, key: KeyEntry, language: string, now?: Date): string {
  return `${keyName(t, key, language, now)} (${keyTellApart(t, key, language)})`;
}

/** One line on the key's state: when it expires, expired, or was revoked. */
export function keyStatus(t: TFunction, key: KeyEntry, language: string, now?: Date): string {
  switch (keyState(key, now)) {
    case 'revoked':
      return t('keys.status.revoked', { date: formatDay(key.revoked_at ?? '', language, now) });
    case 'expired':
      return t('keys.status.expired', { date: formatDay(key.expires_at, language, now) });
    case 'live':
      return t('keys.status.expires', { date: formatDay(key.expires_at, language, now) });
  }
}

/** What stops working when the key is revoked, said for its purpose. */
export function whatStopsWorking(t: TFunction, key: KeyEntry): string {
  switch (key.purpose) {
    case 'browser':
      return t('keys.stops.browser');
    case 'tak-package':
      return t('keys.stops.tak_package');
    case 'tak-enroll':
      return t('keys.stops.tak_enroll', { device: visibleText(key.client_uid ?? '') });
  }
}
