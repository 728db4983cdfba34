import { describe, expect, it } from 'vitest';
import { readLazyNamespace, type Messages } from '../../../build/locales';
import {
  GUIDE_PLATFORMS,
  TAK_GUIDES,
  TAK_GUIDES_NS,
  findStep,
  type GuideSection,
} from './structure';

function lookup(messages: Messages, key: string): unknown {
  let node: unknown = messages;
  for (const part of key.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Messages)[part] : undefined;
  }
  return node;
}

describe('TAK guide structure', () => {
  it('has the step counts each guide is written with', () => {
    const counts = (section: GuideSection) =>
      GUIDE_PLATFORMS.map((platform) => TAK_GUIDES[section][platform].length);
    expect(counts('quickstart')).toEqual([5, 5, 4]);
    expect(counts('usage')).toEqual([3, 1, 4]);
    expect(TAK_GUIDES.quickstart.android.map((step) => step.id)).toEqual([
      'android1',
      'android2',
      'android3',
      'android4',
      'android5',
    ]);
    expect(TAK_GUIDES.usage.win.map((step) => step.id)).toEqual(['win1', 'win2', 'win3', 'win4']);
  });

  it('offers the zip download on the connect step (android2, ios2, win2) only', () => {
    const withDownload = GUIDE_PLATFORMS.flatMap((platform) =>
      TAK_GUIDES.quickstart[platform]
        .filter((step) => step.cards.some((card) => card.download === true))
        .map((step) => step.id),
    );
    expect(withDownload).toEqual(['android2', 'ios2', 'win2']);
  });

  it('goes install, connect (the scan first, the zip after it), check, for Android and iOS', () => {
    for (const platform of ['android', 'ios'] as const) {
      const [install, connect, , check] = TAK_GUIDES.quickstart[platform];
      expect(install?.cards.map((card) => card.id)).toEqual(['store', 'first_start']);
      expect(connect?.cards[0]).toMatchObject({ id: 'scan', enroll: true });
      expect(connect?.cards.findIndex((card) => card.download === true)).toBe(1);
      expect(check?.cards.map((card) => card.id)).toEqual(['servers', 'trouble']);
    }
    // Windows already installed first.
    expect(TAK_GUIDES.quickstart.win[0]?.cards.map((card) => card.id)).toEqual(['get', 'install']);
  });

  it('usage ios1 has four cards and win2 the most cards of the Windows guide', () => {
    expect(TAK_GUIDES.usage.ios[0]?.cards).toHaveLength(4);
    const winCards = TAK_GUIDES.usage.win.map((step) => step.cards.length);
    expect(Math.max(...winCards)).toBe(winCards[1]);
    expect(TAK_GUIDES.usage.win[1]?.cards.map((card) => card.id)).toContain('example');
  });

  it('links each step to its neighbours and the ends to the list', () => {
    expect(findStep('usage', 'win2')).toMatchObject({
      number: 2,
      total: 4,
      backPath: '/app/services/tak/usage/win1',
      forwardPath: '/app/services/tak/usage/win3',
    });
    expect(findStep('usage', 'win4')).toMatchObject({
      isLast: true,
      forwardPath: '/app/services/tak/usage',
    });
    expect(findStep('quickstart', 'nope')).toBeUndefined();
  });

  it.each(['en', 'fi'])('every step and card has its text in %s', (language) => {
    const messages = readLazyNamespace(language, TAK_GUIDES_NS);
    const missing: string[] = [];
    for (const section of ['quickstart', 'usage'] as const) {
      for (const platform of GUIDE_PLATFORMS) {
        for (const step of TAK_GUIDES[section][platform]) {
          const base = `${section}.${step.id}`;
          const keys = [`${base}.title`, `${base}.intro`];
          for (const card of step.cards) {
            const cardBase = `${base}.cards.${card.id}`;
            keys.push(`${cardBase}.title`);
            if (card.image !== undefined) keys.push(`${cardBase}.image_alt`);
            const body = [`${cardBase}.text`, `${cardBase}.steps`].map((key) =>
              lookup(messages, key),
            );
            if (!body.some((value) => Array.isArray(value) && value.length > 0)) {
              missing.push(`${cardBase}.text|steps`);
            }
          }
          missing.push(...keys.filter((key) => typeof lookup(messages, key) !== 'string'));
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
