/** The app's browser storage keys. The language choice is kept by i18next under `i18nextLng`. */
export const STORAGE_KEYS = {
  token: 'token',
  callsign: 'callsign',
  approveCode: 'approveCode',
} as const;

export type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

export function readStored(key: StorageKey): string | null {
  try {
    const value = window.localStorage.getItem(key);
    return value === '' ? null : value;
  } catch {
    return null;
  }
}

export function writeStored(key: StorageKey, value: string): void {
  window.localStorage.setItem(key, value);
}

/** Forgets the jwt session (token, callsign, approval code). */
export function clearStoredSession(): void {
  for (const key of Object.values(STORAGE_KEYS)) window.localStorage.removeItem(key);
}
