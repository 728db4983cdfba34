import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { buildCommon, readDynamic } from '../../build/locales';

/** An i18next instance with the real translations loaded synchronously (no backend). */
export function createTestI18n(language = 'en'): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    lng: language,
    fallbackLng: 'en',
    ns: ['common', 'dynamic'],
    defaultNS: 'common',
    initAsync: false,
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
    resources: {
      en: { common: buildCommon('en'), dynamic: readDynamic('neutral', 'en') },
      fi: { common: buildCommon('fi'), dynamic: readDynamic('neutral', 'fi') },
    },
  });
  return instance;
}
