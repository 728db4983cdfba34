/** Dates and durations in the reader's language (the app's, not the browser's). */

export function formatDateTime(iso: string, language: string | undefined): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' }).format(
    new Date(iso),
  );
}

export function formatDate(iso: string, language: string | undefined): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(new Date(iso));
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
