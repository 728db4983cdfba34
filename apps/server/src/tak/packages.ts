import { strToU8, zipSync, type Zippable } from 'fflate';
import { buildManifest } from './manifest.js';
import type { Preset } from '@callsign/contract';
import { buildServerPref } from './server-pref.js';
import { uuidV5 } from './uuid-v5.js';
import { TAK_VARIANTS, type TakVariant } from './variants.js';

/** What every package of a deployment points at (from the configuration). */
export interface TakSettings {
  takHost: string;
  takPort: number;
  deployment: string;
  truststorePassword: string;
}

export interface TakPackage {
  variant: TakVariant;
  /** The label the web app shows: `Other`, `iOS`, `tracker`. */
  title: string;
  /** `{callsign}_{deployment}_{variant}.zip` */
  filename: string;
  zip: Uint8Array;
}

/** Namespace of the manifest uids (a random UUID of ours, fixed forever: changing it re-keys). */
export const TAK_PACKAGE_UID_NAMESPACE = '6f0c2d1e-8a4b-4c39-9e57-2b7d1f4a9c03';

/** The manifest uid: the same for one member and variant on one TAK server, every time. */
export function packageUid(takHost: string, callsign: string, variant: TakVariant): string {
  return uuidV5(`${takHost}|${callsign}|${variant}`, TAK_PACKAGE_UID_NAMESPACE);
}

export function packageFileName(callsign: string, deployment: string, variant: TakVariant): string {
  return `${callsign}_${deployment}_${variant}.zip`;
}

export function truststoreFileName(deployment: string): string {
  return `truststore-${deployment}.p12`;
}

export function keystoreFileName(callsign: string): string {
  return `${callsign}.p12`;
}

export function zipDataUrl(zip: Uint8Array): string {
  return `data:application/zip;base64,${Buffer.from(zip).toString('base64')}`;
}

/**
 * Fixed entry times, so the same inputs give the same bytes. DOS times are local time: noon on
 * 1 January 2000 stays inside the 1980-2099 range a zip can hold in every time zone.
 */
const ENTRY_TIME = new Date(Date.UTC(2000, 0, 1, 12, 0, 0));

export interface PackageContents {
  /** As the member's record has it: file name, password and callsign in the settings. */
  callsign: string;
  /** The member's key, leaf and CA chain, legacy PKCS#12, password = callsign. */
  keystore: Uint8Array;
  /** The chain that validates the TAK server, legacy PKCS#12, password from the settings. */
  truststore: Uint8Array;
  /** The member's team and role (docs/tak.md); absent: not written. */
  preset?: Preset | undefined;
}

/**
 * The settings file of every package, and the second copy older iTAK versions look for at the
 * root of the zip (docs/tak.md).
 */
export function settingsFileNames(variant: TakVariant): string[] {
  return variant === 'itak' ? ['server.pref', 'config.pref'] : ['server.pref'];
}

/** One file of a data package: its name at the root, its bytes, and how hard to deflate it. */
export type PackageFile = readonly [name: string, data: Uint8Array, level: 0 | 6];

/**
 * A TAK data package: a flat zip, `MANIFEST/manifest.xml` first, then the files it lists.
 * Already encrypted keystores do not compress: give them level 0; the XML is deflated.
 */
export function buildDataPackage(options: {
  uid: string;
  name: string;
  onReceiveDelete?: boolean;
  files: readonly PackageFile[];
}): Uint8Array {
  const manifest = buildManifest({
    uid: options.uid,
    name: options.name,
    entries: options.files.map(([name]) => name),
    ...(options.onReceiveDelete === undefined ? {} : { onReceiveDelete: options.onReceiveDelete }),
  });
  const zippable: Zippable = {
    'MANIFEST/manifest.xml': [strToU8(manifest), { level: 6, mtime: ENTRY_TIME }],
  };
  for (const [name, data, level] of options.files) {
    zippable[name] = [data, { level, mtime: ENTRY_TIME }];
  }
  return zipSync(zippable);
}

/** One settings package of a member: server.pref, truststore and keystore. */
export function buildTakPackage(
  settings: TakSettings,
  contents: PackageContents,
  variant: TakVariant,
): Uint8Array {
  const truststoreFile = truststoreFileName(settings.deployment);
  const keystoreFile = keystoreFileName(contents.callsign);
  const pref = buildServerPref({
    variant,
    deployment: settings.deployment,
    takHost: settings.takHost,
    takPort: settings.takPort,
    callsign: contents.callsign,
    truststoreFile,
    truststorePassword: settings.truststorePassword,
    keystoreFile,
    preset: contents.preset,
  });
  const prefBytes = strToU8(pref);
  return buildDataPackage({
    uid: packageUid(settings.takHost, contents.callsign, variant),
    name: settings.deployment,
    files: [
      ...settingsFileNames(variant).map((name): PackageFile => [name, prefBytes, 6]),
      [truststoreFile, contents.truststore, 0],
      [keystoreFile, contents.keystore, 0],
    ],
  });
}

/** The three packages (docs/tak.md), in order, all with the same keystore and truststore. */
export function buildTakPackages(settings: TakSettings, contents: PackageContents): TakPackage[] {
  return TAK_VARIANTS.map(({ variant, title }) => ({
    variant,
    title,
    filename: packageFileName(contents.callsign, settings.deployment, variant),
    zip: buildTakPackage(settings, contents, variant),
  }));
}
