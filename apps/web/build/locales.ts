import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `common` namespace of each language is `src/locales/{lng}/common.json` with every other
 * JSON file of that folder (the writers' `keyguide.json`) deep-merged into it. Shared by the
 * Vite plugin and the key-parity test.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const LOCALES_DIR = path.resolve(HERE, '../src/locales');
/** The branding sets the server serves the `dynamic` namespace from. */
export const BRANDING_DIR = path.resolve(HERE, '../../server/branding');

export type Messages = { [key: string]: string | Messages };

function isObject(value: unknown): value is Messages {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepMerge(target: Messages, source: Messages, where = ''): Messages {
  const result: Messages = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const existing = result[key];
    if (isObject(existing) && isObject(value)) {
      result[key] = deepMerge(existing, value, `${where}${key}.`);
    } else {
      result[key] = value;
    }
  }
  return result;
}

export function listLanguages(dir = LOCALES_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function readJson(file: string): Messages {
  return JSON.parse(readFileSync(file, 'utf8')) as Messages;
}

/** `common.json` first, then the other files of the folder in name order merged over it. */
export function buildCommon(language: string, dir = LOCALES_DIR): Messages {
  const folder = path.join(dir, language);
  const extra = readdirSync(folder)
    .filter((name) => name.endsWith('.json') && name !== 'common.json')
    .sort();
  let messages = existsSync(path.join(folder, 'common.json'))
    ? readJson(path.join(folder, 'common.json'))
    : {};
  for (const name of extra) messages = deepMerge(messages, readJson(path.join(folder, name)));
  return messages;
}

/**
 * Namespaces loaded only by the pages that use them (the guides' long texts): each
 * `src/locales/{lng}/namespaces/{ns}.json` is served as `/locales/{lng}/{ns}.json` and is not
 * merged into `common`.
 */
export const LAZY_NAMESPACES_FOLDER = 'namespaces';

export function listLazyNamespaces(language: string, dir = LOCALES_DIR): string[] {
  const folder = path.join(dir, language, LAZY_NAMESPACES_FOLDER);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

export function readLazyNamespace(
  language: string,
  namespace: string,
  dir = LOCALES_DIR,
): Messages {
  return readJson(path.join(dir, language, LAZY_NAMESPACES_FOLDER, `${namespace}.json`));
}

/** Hash of every language's merged `common` and lazy namespaces: the translation cache version. */
export function localesVersion(dir = LOCALES_DIR): string {
  const hash = createHash('sha256');
  for (const language of listLanguages(dir)) {
    hash.update(language);
    hash.update(JSON.stringify(buildCommon(language, dir)));
    for (const namespace of listLazyNamespaces(language, dir)) {
      hash.update(namespace);
      hash.update(JSON.stringify(readLazyNamespace(language, namespace, dir)));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/** Every leaf key of a message tree, dotted (`keyguide.os.windows.title`). */
export function leafKeys(messages: Messages, prefix = ''): string[] {
  return Object.entries(messages).flatMap(([key, value]) =>
    isObject(value) ? leafKeys(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

export function readDynamic(set: string, language: string): Messages {
  return readJson(path.join(BRANDING_DIR, set, 'locales', language, 'dynamic.json'));
}
