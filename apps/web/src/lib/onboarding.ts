/**
 * The lazily loaded translations of onboarding (`src/locales/{lng}/namespaces/onboarding.json`):
 * invite options, presets, bulk slips. Pages that use them load them on first use.
 */
export const ONBOARDING_NS = 'onboarding';

/** A time from the API as the person's locale shows a date and time. */
export function formatDateTime(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
