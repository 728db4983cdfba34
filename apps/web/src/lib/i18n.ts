import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import ChainedBackend from 'i18next-chained-backend';
import LocalStorageBackend from 'i18next-localstorage-backend';
import resourcesToBackend from 'i18next-resources-to-backend';
import { initReactI18next } from 'react-i18next';
import { LANGUAGE_STORAGE_KEY } from './storage-keys';

/** The app's languages, English and Finnish; English is the fallback. */
export const LANGUAGES = [
  { code: 'en', label: 'English' },
  { code: 'fi', label: 'Suomi' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

export const NAMESPACES = ['common', 'dynamic'] as const;
export const TRANSLATION_CACHE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A namespace from the server, `/locales/{lng}/{ns}.json`. Not i18next-http-backend: this is all
 * of it the app used, at a tenth of its size in the login route's first load (budget 70 KB).
 * A failed fetch or an answer that is not JSON rejects, and i18next reports the namespace as not
 * loaded, as it did with the HTTP backend.
 */
async function fetchNamespace(language: string, namespace: string): Promise<unknown> {
  const response = await fetch(`/locales/${language}/${namespace}.json`);
  if (!response.ok) throw new Error(`/locales/${language}/${namespace}.json: ${response.status}`);
  return response.json();
}

/**
 * Translations are static assets (`/locales/{lng}/{ns}.json`): `common` is built from
 * `src/locales` (see `build/locales-plugin.ts`), `dynamic` is the deployment's branding served
 * by the server. Both are cached in localStorage for 7 days; the cache version is the hash of the
 * built `common` files, so a new build is never hidden behind an old cache.
 */
export function initI18n(): Promise<unknown> {
  i18next.on('languageChanged', (language) => {
    document.documentElement.lang = language;
  });
  return i18next
    .use(ChainedBackend)
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      supportedLngs: LANGUAGES.map((language) => language.code),
      nonExplicitSupportedLngs: true,
      load: 'languageOnly',
      fallbackLng: 'en',
      ns: [...NAMESPACES],
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      detection: {
        order: ['localStorage', 'navigator'],
        lookupLocalStorage: LANGUAGE_STORAGE_KEY,
        caches: ['localStorage'],
      },
      backend: {
        backends: [LocalStorageBackend, resourcesToBackend(fetchNamespace)],
        backendOptions: [
          {
            prefix: 'i18next_res_',
            expirationTime: TRANSLATION_CACHE_MS,
            defaultVersion: import.meta.env.VITE_LOCALES_VERSION,
          },
        ],
      },
      react: { useSuspense: true },
    });
}

export { i18next };
