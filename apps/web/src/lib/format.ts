import { dateLocale } from './key-names';

/**
 * Dates and durations in the reader's language (the app's, not the browser's): the one date
 * format of the app. A day reads "25 Nov 2026" (Finnish "25.11.2026"), a moment "25 Nov 2026,
 * 17:30" ("25.11.2026 klo 17.30"), in the device's time zone; English is British English, as
 * everywhere in the app. Lint refuses `Intl.DateTimeFormat` and `toLocale…String` elsewhere.
 */

type When = string | number | Date;

function formatter(language: string | undefined, options: Intl.DateTimeFormatOptions) {
  return new Intl.DateTimeFormat(
    language === undefined ? undefined : dateLocale(language),
    options,
  );
}

/** A moment: the day and the time of day (hours and minutes). */
export function formatDateTime(when: When, language: string | undefined): string {
  return formatter(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(when));
}

/** A day. */
export function formatDate(when: When, language: string | undefined): string {
  return formatter(language, { dateStyle: 'medium' }).format(new Date(when));
}

const UNITS: readonly [unit: 'day' | 'hour' | 'minute', seconds: number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** A duration in its largest whole unit: "3 hours", "12 minutes", "40 seconds". */
export function formatAge(seconds: number, language: string | undefined): string {
  const [unit, size] = UNITS.find(([, length]) => seconds >= length) ?? ['second', 1];
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'long' }).format(
    Math.floor(seconds / size),
  );
}
