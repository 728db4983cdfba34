import type { Plugin } from 'vite';
import {
  LOCALES_DIR,
  buildCommon,
  listLanguages,
  listLazyNamespaces,
  localesVersion,
  readDynamic,
  readLazyNamespace,
} from './locales.ts';

/**
 * Serves and emits `/locales/{lng}/common.json` (sources merged, see `locales.ts`) and each lazy
 * namespace `/locales/{lng}/{ns}.json` (from `src/locales/{lng}/namespaces/`). The dev
 * server also answers `/locales/{lng}/dynamic.json` from the neutral branding set; the real
 * server serves it from the set chosen by `PORTAL_BRANDING`.
 */
export function localesPlugin(): Plugin {
  return {
    name: 'callsign-locales',
    config() {
      return {
        define: { 'import.meta.env.VITE_LOCALES_VERSION': JSON.stringify(localesVersion()) },
      };
    },
    configureServer(server) {
      server.watcher.add(LOCALES_DIR);
      server.middlewares.use((request, response, next) => {
        const match = /^\/locales\/([a-z]{2})\/([a-z0-9-]+)\.json$/.exec(
          request.url?.split('?')[0] ?? '',
        );
        if (match === null) {
          next();
          return;
        }
        const [, language = 'en', namespace = ''] = match;
        if (
          namespace !== 'common' &&
          namespace !== 'dynamic' &&
          !listLazyNamespaces(language).includes(namespace)
        ) {
          next();
          return;
        }
        try {
          const messages =
            namespace === 'common'
              ? buildCommon(language)
              : namespace === 'dynamic'
                ? readDynamic('neutral', language)
                : readLazyNamespace(language, namespace);
          response.setHeader('content-type', 'application/json; charset=utf-8');
          response.end(JSON.stringify(messages));
        } catch {
          response.statusCode = 404;
          response.end();
        }
      });
    },
    generateBundle() {
      for (const language of listLanguages()) {
        this.emitFile({
          type: 'asset',
          fileName: `locales/${language}/common.json`,
          source: JSON.stringify(buildCommon(language)),
        });
        for (const namespace of listLazyNamespaces(language)) {
          this.emitFile({
            type: 'asset',
            fileName: `locales/${language}/${namespace}.json`,
            source: JSON.stringify(readLazyNamespace(language, namespace)),
          });
        }
      }
    },
  };
}
