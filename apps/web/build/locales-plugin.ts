import type { Plugin } from 'vite';
import { LOCALES_DIR, buildCommon, listLanguages, localesVersion, readDynamic } from './locales';

/**
 * Serves and emits `/locales/{lng}/common.json` (sources merged, see `locales.ts`). The dev
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
        const match = /^\/locales\/([a-z]{2})\/(common|dynamic)\.json$/.exec(
          request.url?.split('?')[0] ?? '',
        );
        if (match === null) {
          next();
          return;
        }
        const [, language = 'en', namespace] = match;
        try {
          const messages =
            namespace === 'common' ? buildCommon(language) : readDynamic('neutral', language);
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
      }
    },
  };
}
