import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BRANDING_DIR,
  LOCALES_DIR,
  buildCommon,
  deepMerge,
  leafKeys,
  listLanguages,
  listLazyNamespaces,
  readDynamic,
  readLazyNamespace,
} from '../../build/locales';
import { LANGUAGES } from './i18n';

function missing(from: string[], to: string[]): string[] {
  const present = new Set(to);
  return from.filter((key) => !present.has(key));
}

describe('translations', () => {
  it('have a folder for each language of the menu, and no other', () => {
    expect(listLanguages()).toEqual(LANGUAGES.map((language) => language.code).sort());
  });

  it('common (with the keyguide merged in): every key exists in every language', () => {
    const [first = 'en', ...others] = listLanguages();
    const reference = leafKeys(buildCommon(first));
    expect(reference.length).toBeGreaterThan(0);
    for (const language of others) {
      const keys = leafKeys(buildCommon(language));
      expect(missing(reference, keys), `missing in ${language}`).toEqual([]);
      expect(missing(keys, reference), `missing in ${first}`).toEqual([]);
    }
  });

  it('lazy namespaces: each exists in every language with the same keys', () => {
    const [first = 'en', ...others] = listLanguages();
    const namespaces = listLazyNamespaces(first);
    for (const language of others) {
      expect(listLazyNamespaces(language)).toEqual(namespaces);
      for (const namespace of namespaces) {
        const reference = leafKeys(readLazyNamespace(first, namespace));
        const keys = leafKeys(readLazyNamespace(language, namespace));
        expect(missing(reference, keys), `${namespace}: missing in ${language}`).toEqual([]);
        expect(missing(keys, reference), `${namespace}: missing in ${first}`).toEqual([]);
      }
    }
  });

  it('every file of a language folder has its counterpart in the other languages', () => {
    const [first = 'en', ...others] = listLanguages();
    const files = readdirSync(path.join(LOCALES_DIR, first)).sort();
    for (const language of others) {
      expect(readdirSync(path.join(LOCALES_DIR, language)).sort()).toEqual(files);
    }
  });

  it('dynamic: every branding set has the same keys in every language', () => {
    const sets = readdirSync(BRANDING_DIR);
    expect(sets).toContain('neutral');
    for (const set of sets) {
      const reference = leafKeys(readDynamic(set, 'en'));
      for (const { code } of LANGUAGES) {
        expect(existsSync(path.join(BRANDING_DIR, set, 'locales', code, 'dynamic.json'))).toBe(
          true,
        );
        const keys = leafKeys(readDynamic(set, code));
        expect(missing(reference, keys), `${set}: missing in ${code}`).toEqual([]);
        expect(missing(keys, reference), `${set}: missing in en`).toEqual([]);
      }
    }
  });

  it('the merge keeps both trees and lets the later file win on a clash', () => {
    expect(deepMerge({ a: { b: '1', c: '2' } }, { a: { c: '3', d: '4' }, e: '5' })).toEqual({
      a: { b: '1', c: '3', d: '4' },
      e: '5',
    });
  });

  it('the key leaves count array items as keys of their own', () => {
    expect(leafKeys({ a: { b: 'x' }, c: 'y' })).toEqual(['a.b', 'c']);
  });
});
