import { describe, expect, it } from 'vitest';
import type { Preset } from '@callsign/contract';
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

const CERTIFICATE_KEYS = [
  ['caLocation', 'cert/truststore-alpha.p12'],
  ['caPassword', 'public'],
  ['certificateLocation', 'cert/Eagle7.p12'],
  ['clientPassword', 'Eagle7'],
] as const;
const APP = 'com.atakmap.app_preferences';

describe('buildServerPref', () => {
  it.each(TAK_VARIANTS.map((item) => item.variant))(
    '%s: one TLS stream with its own certificate keys and relative locations, UTF-8 declared',
    (variant) => {
      const xml = buildServerPref({ ...base, variant });
      expect(xml.split('\n')[0]).toMatch(/^<\?xml version='1.0' encoding='UTF-8'/);
      expect(keys(xml, 'cot_streams')).toEqual([
        'count',
        'description0',
        'enabled0',
        'connectString0',
        'caLocation0',
        'caPassword0',
        'certificateLocation0',
        'clientPassword0',
      ]);
      expect(value(xml, 'cot_streams', 'count')).toBe('1');
      expect(value(xml, 'cot_streams', 'description0')).toBe('alpha');
      expect(value(xml, 'cot_streams', 'enabled0')).toBe('true');
      expect(value(xml, 'cot_streams', 'connectString0')).toBe('tak.example.org:8089:ssl');
      for (const [key, expected] of CERTIFICATE_KEYS) {
        expect(value(xml, 'cot_streams', `${key}0`)).toBe(expected);
      }
      expect(value(xml, APP, 'displayServerConnectionWidget')).toBe('true');
      expect(xpathString(xml, `//entry[@key="count"]/@class`)).toBe('class java.lang.Integer');
      expect(xpathString(xml, `//entry[@key="enabled0"]/@class`)).toBe('class java.lang.Boolean');
      expect(xml).not.toMatch(/>\//); // no absolute path anywhere
    },
  );

  it('atak: no global certificate keys, so a renewed package replaces the key of its connection', () => {
    const xml = buildServerPref(base);
    expect(keys(xml, APP)).toEqual(['displayServerConnectionWidget', 'locationCallsign']);
    for (const [key] of CERTIFICATE_KEYS) {
      expect(xpathString(xml, `count(//entry[@key="${key}"])`)).toBe('0');
    }
  });

  it.each(['itak', 'tak-tracker'] as const)(
    '%s: the unsuffixed certificate keys as well, for the iOS clients that read only those',
    (variant) => {
      const xml = buildServerPref({ ...base, variant });
      for (const [key, expected] of CERTIFICATE_KEYS) {
        expect(value(xml, APP, key)).toBe(expected);
        expect(value(xml, 'cot_streams', `${key}0`)).toBe(expected);
      }
    },
  );

  it('sets locationCallsign for ATAK only', () => {
    expect(value(buildServerPref(base), APP, 'locationCallsign')).toBe('Eagle7');
    expect(keys(buildServerPref({ ...base, variant: 'itak' }), APP)).not.toContain(
      'locationCallsign',
    );
    expect(keys(buildServerPref({ ...base, variant: 'tak-tracker' }), APP)).not.toContain(
      'locationCallsign',
    );
  });

  it('writes team and role only from a preset: ATAK locationTeam and atakRoleType, the tracker role', () => {
    for (const variant of ['atak', 'itak'] as const) {
      const xml = buildServerPref({ ...base, variant });
      expect(keys(xml, APP)).not.toContain('locationTeam');
      expect(keys(xml, APP)).not.toContain('atakRoleType');
    }
    const preset = { team: 'Dark Blue', role: 'Forward Observer' } as const;
    const atak = buildServerPref({ ...base, preset });
    expect(value(atak, APP, 'locationTeam')).toBe('Dark Blue');
    expect(value(atak, APP, 'atakRoleType')).toBe('Forward Observer');
    expect(keys(buildServerPref({ ...base, variant: 'itak', preset }), APP)).not.toContain(
      'locationTeam',
    );
    const tracker = buildServerPref({ ...base, variant: 'tak-tracker', preset });
    expect(value(tracker, 'gov.tak.taktracker_preferences', 'role')).toBe('Forward Observer');
  });

  it('gives the tracker its own group, and keeps it out of the other variants', () => {
    const xml = buildServerPref({ ...base, variant: 'tak-tracker' });
    expect(value(xml, 'gov.tak.taktracker_preferences', 'callsign')).toBe('Eagle7');
    expect(value(xml, 'gov.tak.taktracker_preferences', 'role')).toBe('Team Member');
    for (const variant of ['atak', 'itak'] as const) {
      expect(buildServerPref({ ...base, variant })).not.toContain('gov.tak.taktracker_preferences');
    }
  });

  it('escapes &<>"\' in the deployment, callsign, passwords and preset', () => {
    const nasty = `A&B <"x"> 'y'`;
    const options = {
      ...base,
      deployment: nasty,
      callsign: nasty,
      truststorePassword: nasty,
      keystoreFile: `${nasty}.p12`,
      // Escaping holds for any text, not only ATAK's team and role names.
      preset: { team: nasty, role: nasty } as unknown as Preset,
    };
    const xml = buildServerPref({ ...options, variant: 'tak-tracker' });
    expect(xml).not.toContain('A&B');
    expect(value(xml, 'cot_streams', 'description0')).toBe(nasty);
    expect(value(xml, 'cot_streams', 'clientPassword0')).toBe(nasty);
    expect(value(xml, APP, 'clientPassword')).toBe(nasty);
    expect(value(xml, APP, 'caPassword')).toBe(nasty);
    expect(value(xml, APP, 'certificateLocation')).toBe(`cert/${nasty}.p12`);
    expect(value(xml, 'gov.tak.taktracker_preferences', 'callsign')).toBe(nasty);
    expect(value(xml, 'gov.tak.taktracker_preferences', 'role')).toBe(nasty);
    const atak = buildServerPref(options);
    expect(atak).not.toContain('A&B');
    expect(value(atak, APP, 'locationTeam')).toBe(nasty);
    expect(value(atak, 'cot_streams', 'certificateLocation0')).toBe(`cert/${nasty}.p12`);
  });
});
