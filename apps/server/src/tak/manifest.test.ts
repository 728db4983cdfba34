import { describe, expect, it } from 'vitest';
import { buildManifest } from './manifest.js';
import { xpathString, xpathValues } from './xpath.testing.js';

const parameter = (xml: string, name: string) =>
  xpathString(xml, `/MissionPackageManifest/Configuration/Parameter[@name="${name}"]/@value`);

describe('buildManifest', () => {
  const entries = ['server.pref', 'truststore-alpha.p12', 'Eagle7.p12'];

  it('is a version 2 manifest, UTF-8, imported on receipt and kept afterwards', () => {
    const xml = buildManifest({ uid: 'the-uid', name: 'alpha', entries });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(xpathString(xml, '/MissionPackageManifest/@version')).toBe('2');
    expect(parameter(xml, 'uid')).toBe('the-uid');
    expect(parameter(xml, 'name')).toBe('alpha');
    expect(parameter(xml, 'onReceiveImport')).toBe('true');
    expect(parameter(xml, 'onReceiveDelete')).toBe('false');
  });

  it('lists one Content per file, in order, none ignored', () => {
    const xml = buildManifest({ uid: 'u', name: 'alpha', entries });
    expect(xpathValues(xml, '/MissionPackageManifest/Contents/Content/@zipEntry')).toEqual(entries);
    expect(xpathValues(xml, '/MissionPackageManifest/Contents/Content/@ignore')).toEqual([
      'false',
      'false',
      'false',
    ]);
  });

  it('escapes &<>"\' in the name and the entries', () => {
    const name = `A&B <"Team"> 'one'`;
    const xml = buildManifest({ uid: 'u', name, entries: [`x&<>"'.p12`] });
    expect(xml).not.toContain('A&B');
    expect(parameter(xml, 'name')).toBe(name);
    expect(xpathValues(xml, '/MissionPackageManifest/Contents/Content/@zipEntry')).toEqual([
      `x&<>"'.p12`,
    ]);
  });
});
