import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import {
  buildCommon,
  listLazyNamespaces,
  readDynamic,
  readLazyNamespace,
  type Messages,
} from '../../build/locales';

/** A language's lazily loaded namespaces (the guides' texts), by name. */
function lazyNamespaces(language: string): Record<string, Messages> {
  return Object.fromEntries(
    listLazyNamespaces(language).map((namespace) => [
      namespace,
      readLazyNamespace(language, namespace),
    ]),
  );
}

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
      en: {
        common: buildCommon('en'),
        dynamic: readDynamic('neutral', 'en'),
        ...lazyNamespaces('en'),
      },
      fi: {
        common: buildCommon('fi'),
        dynamic: readDynamic('neutral', 'fi'),
        ...lazyNamespaces('fi'),
      },
    },
  });
  return instance;
}
