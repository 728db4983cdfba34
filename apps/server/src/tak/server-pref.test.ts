import { describe, expect, it } from 'vitest';
import { buildServerPref, type ServerPrefOptions } from './server-pref.js';
import { TAK_VARIANTS } from './variants.js';
import { xpathString, xpathValues } from './xpath.testing.js';

const base: ServerPrefOptions = {
  variant: 'atak',
  deployment: 'alpha',
  takHost: 'tak.example.org',
  takPort: 8089,
  callsign: 'Eagle7',
  truststoreFile: 'truststore-alpha.p12',
  truststorePassword: 'public',
  keystoreFile: 'Eagle7.p12',
};

const value = (xml: string, group: string, key: string) =>
  xpathString(xml, `/preferences/preference[@name="${group}"]/entry[@key="${key}"]`);
const keys = (xml: string, group: string) =>
  xpathValues(xml, `/preferences/preference[@name="${group}"]/entry/@key`);

describe('buildServerPref', () => {
  it.each(TAK_VARIANTS.map((item) => item.variant))(
    '%s: one TLS stream and relative certificate locations, UTF-8 declared',
    (variant) => {
      const xml = buildServerPref({ ...base, variant });
      expect(xml.split('\n')[0]).toMatch(/^<\?xml version='1.0' encoding='UTF-8'/);
      expect(value(xml, 'cot_streams', 'count')).toBe('1');
      expect(value(xml, 'cot_streams', 'description0')).toBe('alpha');
      expect(value(xml, 'cot_streams', 'enabled0')).toBe('true');
      expect(value(xml, 'cot_streams', 'connectString0')).toBe('tak.example.org:8089:ssl');
      const app = 'com.atakmap.app_preferences';
      expect(value(xml, app, 'caLocation')).toBe('cert/truststore-alpha.p12');
      expect(value(xml, app, 'caPassword')).toBe('public');
      expect(value(xml, app, 'certificateLocation')).toBe('cert/Eagle7.p12');
      expect(value(xml, app, 'clientPassword')).toBe('Eagle7');
      expect(value(xml, app, 'displayServerConnectionWidget')).toBe('true');
      expect(xpathString(xml, `//entry[@key="count"]/@class`)).toBe('class java.lang.Integer');
      expect(xpathString(xml, `//entry[@key="enabled0"]/@class`)).toBe('class java.lang.Boolean');
      expect(xml).not.toMatch(/>\//); // no absolute path anywhere
    },
  );

  it('sets locationCallsign for ATAK only', () => {
    const app = 'com.atakmap.app_preferences';
    expect(value(buildServerPref(base), app, 'locationCallsign')).toBe('Eagle7');
    expect(keys(buildServerPref({ ...base, variant: 'itak' }), app)).not.toContain(
      'locationCallsign',
    );
    expect(keys(buildServerPref({ ...base, variant: 'tak-tracker' }), app)).not.toContain(
      'locationCallsign',
    );
  });

  it('gives the tracker the certificate keys with and without the 0 suffix, and its own group', () => {
    const xml = buildServerPref({ ...base, variant: 'tak-tracker' });
    const app = 'com.atakmap.app_preferences';
    for (const [key, expected] of [
      ['caLocation', 'cert/truststore-alpha.p12'],
      ['caPassword', 'public'],
      ['certificateLocation', 'cert/Eagle7.p12'],
      ['clientPassword', 'Eagle7'],
    ] as const) {
      expect(value(xml, app, key)).toBe(expected);
      expect(value(xml, 'cot_streams', `${key}0`)).toBe(expected);
    }
    expect(value(xml, 'gov.tak.taktracker_preferences', 'callsign')).toBe('Eagle7');
    expect(value(xml, 'gov.tak.taktracker_preferences', 'role')).toBe('Team Member');
  });

  it('keeps the suffixed keys and the tracker group out of the other variants', () => {
    for (const variant of ['atak', 'itak'] as const) {
      const xml = buildServerPref({ ...base, variant });
      expect(keys(xml, 'cot_streams')).toEqual([
        'count',
        'description0',
        'enabled0',
        'connectString0',
      ]);
      expect(xml).not.toContain('gov.tak.taktracker_preferences');
    }
  });

  it('escapes &<>"\' in the deployment, callsign and passwords', () => {
    const nasty = `A&B <"x"> 'y'`;
    const xml = buildServerPref({
      ...base,
      variant: 'tak-tracker',
      deployment: nasty,
      callsign: nasty,
      truststorePassword: nasty,
      keystoreFile: `${nasty}.p12`,
    });
    expect(xml).not.toContain('A&B');
    const app = 'com.atakmap.app_preferences';
    expect(value(xml, 'cot_streams', 'description0')).toBe(nasty);
    expect(value(xml, app, 'clientPassword')).toBe(nasty);
    expect(value(xml, app, 'caPassword')).toBe(nasty);
    expect(value(xml, app, 'certificateLocation')).toBe(`cert/${nasty}.p12`);
    expect(value(xml, 'gov.tak.taktracker_preferences', 'callsign')).toBe(nasty);
  });
});
