/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Hash of the built `common` translations: the version of the translation cache. */
  readonly VITE_LOCALES_VERSION: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
