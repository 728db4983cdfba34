import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  buildTakPackage,
  buildTakPackages,
  packageUid,
  zipDataUrl,
  type PackageContents,
  type TakSettings,
} from './packages.js';
import { TAK_VARIANTS } from './variants.js';
import { xpathString, xpathValues } from './xpath.testing.js';

const settings: TakSettings = {
  takHost: 'tak.example.org',
  takPort: 8089,
  deployment: 'alpha',
  truststorePassword: 'public',
};
const contents: PackageContents = {
  callsign: 'Eagle7',
  keystore: new Uint8Array([1, 2, 3, 4]),
  truststore: new Uint8Array([5, 6, 7]),
};

function manifestOf(files: Record<string, Uint8Array>): string {
  const manifest = files['MANIFEST/manifest.xml'];
  expect(manifest).toBeDefined();
  return strFromU8(manifest!);
}

describe('buildTakPackages', () => {
  it('makes Other, iOS, tracker in that order, named {callsign}_{deployment}_{variant}.zip', () => {
    const packages = buildTakPackages(settings, contents);
    expect(packages.map((item) => [item.title, item.filename])).toEqual([
      ['Other', 'Eagle7_alpha_atak.zip'],
      ['iOS', 'Eagle7_alpha_itak.zip'],
      ['tracker', 'Eagle7_alpha_tak-tracker.zip'],
    ]);
  });

  it.each(TAK_VARIANTS.map((item) => item.variant))(
    '%s: flat, the manifest lists exactly the other files, the keystores are carried as given',
    (variant) => {
      const files = unzipSync(buildTakPackage(settings, contents, variant));
      const settingsFiles = variant === 'itak' ? ['config.pref', 'server.pref'] : ['server.pref'];
      expect(Object.keys(files).sort()).toEqual(
        ['Eagle7.p12', 'MANIFEST/manifest.xml', 'truststore-alpha.p12', ...settingsFiles].sort(),
      );
      const listed = xpathValues(manifestOf(files), '//Content/@zipEntry');
      expect([...listed].sort()).toEqual(
        Object.keys(files)
          .filter((name) => name !== 'MANIFEST/manifest.xml')
          .sort(),
      );
      expect(files['Eagle7.p12']).toEqual(contents.keystore);
      expect(files['truststore-alpha.p12']).toEqual(contents.truststore);
      const pref = strFromU8(files['server.pref']!);
      expect(
        xpathString(pref, '//preference[@name="cot_streams"]/entry[@key="connectString0"]'),
      ).toBe('tak.example.org:8089:ssl');
      expect(xpathString(manifestOf(files), '//Parameter[@name="name"]/@value')).toBe('alpha');
      expect(xpathString(manifestOf(files), '//Parameter[@name="uid"]/@value')).toBe(
        packageUid('tak.example.org', 'Eagle7', variant),
      );
    },
  );

  it('atak: the certificate keys only inside connection 0, none in the app preferences', () => {
    const files = unzipSync(buildTakPackage(settings, contents, 'atak'));
    const pref = strFromU8(files['server.pref']!);
    const streams = '//preference[@name="cot_streams"]';
    expect(xpathString(pref, `${streams}/entry[@key="caLocation0"]`)).toBe(
      'cert/truststore-alpha.p12',
    );
    expect(xpathString(pref, `${streams}/entry[@key="caPassword0"]`)).toBe('public');
    expect(xpathString(pref, `${streams}/entry[@key="certificateLocation0"]`)).toBe(
      'cert/Eagle7.p12',
    );
    expect(xpathString(pref, `${streams}/entry[@key="clientPassword0"]`)).toBe('Eagle7');
    const app = '//preference[@name="com.atakmap.app_preferences"]';
    for (const key of ['caLocation', 'caPassword', 'certificateLocation', 'clientPassword']) {
      expect(xpathString(pref, `count(${app}/entry[@key="${key}"])`)).toBe('0');
    }
    expect(files['config.pref']).toBeUndefined();
  });

  it('itak: a root config.pref identical to server.pref, for older iTAK', () => {
    const files = unzipSync(buildTakPackage(settings, contents, 'itak'));
    expect(files['config.pref']).toEqual(files['server.pref']);
    const pref = strFromU8(files['config.pref']!);
    expect(xpathString(pref, '//entry[@key="certificateLocation"]')).toBe('cert/Eagle7.p12');
  });

  it('puts the tracker keys both unsuffixed and with the 0 suffix into the tracker zip', () => {
    const files = unzipSync(buildTakPackage(settings, contents, 'tak-tracker'));
    const pref = strFromU8(files['server.pref']!);
    expect(xpathString(pref, '//entry[@key="certificateLocation"]')).toBe('cert/Eagle7.p12');
    expect(xpathString(pref, '//entry[@key="certificateLocation0"]')).toBe('cert/Eagle7.p12');
    expect(xpathString(pref, '//entry[@key="caLocation0"]')).toBe('cert/truststore-alpha.p12');
  });

  it('carries the preset into the settings when the member has one', () => {
    const preset = { team: 'Red', role: 'Medic' } as const;
    const files = unzipSync(buildTakPackage(settings, { ...contents, preset }, 'atak'));
    const pref = strFromU8(files['server.pref']!);
    expect(xpathString(pref, '//entry[@key="locationTeam"]')).toBe('Red');
    expect(xpathString(pref, '//entry[@key="atakRoleType"]')).toBe('Medic');
  });

  it('gives the same bytes for the same input (fixed entry times)', () => {
    expect(buildTakPackage(settings, contents, 'atak')).toEqual(
      buildTakPackage(settings, contents, 'atak'),
    );
  });

  it('escapes a deployment name with &<>"\' in the manifest and the settings', () => {
    const deployment = `A&B<"c">'d'`;
    const files = unzipSync(buildTakPackage({ ...settings, deployment }, contents, 'atak'));
    expect(xpathString(manifestOf(files), '//Parameter[@name="name"]/@value')).toBe(deployment);
    const pref = strFromU8(files['server.pref']!);
    expect(xpathString(pref, '//entry[@key="description0"]')).toBe(deployment);
    expect(xpathString(pref, '//entry[@key="caLocation0"]')).toBe(
      `cert/truststore-${deployment}.p12`,
    );
    expect(xpathValues(manifestOf(files), '//Content/@zipEntry')).toContain(
      `truststore-${deployment}.p12`,
    );
  });
});

describe('packageUid', () => {
  it('is stable per member and variant, and differs across variants, members and TAK hosts', () => {
    const uids = TAK_VARIANTS.map(({ variant }) =>
      packageUid('tak.example.org', 'Eagle7', variant),
    );
    expect(new Set(uids).size).toBe(3);
    expect(packageUid('tak.example.org', 'Eagle7', 'atak')).toBe(uids[0]);
    expect(packageUid('tak.example.org', 'Wolf1', 'atak')).not.toBe(uids[0]);
    expect(packageUid('tak2.example.org', 'Eagle7', 'atak')).not.toBe(uids[0]);
  });
});

describe('zipDataUrl', () => {
  it('is a base64 application/zip data URL of the bytes', () => {
    const url = zipDataUrl(new Uint8Array([0x50, 0x4b, 3, 4]));
    expect(url).toBe('data:application/zip;base64,UEsDBA==');
  });
});
