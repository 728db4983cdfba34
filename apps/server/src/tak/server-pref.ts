import type { Preset } from '@callsign/contract';
import type { TakVariant } from './variants.js';
import { escapeXml, XML_DECLARATION } from './xml.js';

export interface ServerPrefOptions {
  variant: TakVariant;
  deployment: string;
  takHost: string;
  takPort: number;
  callsign: string;
  /** File names at the root of the zip; the client finds them under `cert/`. */
  truststoreFile: string;
  truststorePassword: string;
  keystoreFile: string;
  /** Absent: no team or role is written and the client keeps its own. */
  preset?: Preset | undefined;
}

type EntryClass = 'String' | 'Boolean' | 'Integer';
/** One `<entry>` of a preference group: key, value and its Java class. */
export type Entry = readonly [key: string, value: string, type: EntryClass];

export function entry(key: string, value: string | number | boolean): Entry {
  const type: EntryClass =
    typeof value === 'boolean' ? 'Boolean' : typeof value === 'number' ? 'Integer' : 'String';
  return [key, String(value), type];
}

/** A `<preference>` group, as the lines of the document. */
export function group(name: string, entries: readonly Entry[]): string[] {
  return [
    `  <preference version="1" name="${escapeXml(name)}">`,
    ...entries.map(
      ([key, value, type]) =>
        `    <entry key="${escapeXml(key)}" class="class java.lang.${type}">${escapeXml(value)}</entry>`,
    ),
    '  </preference>',
  ];
}

/**
 * What each client reads (docs/tak.md). ATAK and WinTAK take the certificate keys of connection
 * 0 from `cot_streams`; global ones would become ATAK's default certificate for every server, and
 * its importer skips them for a connection it already has, so a renewed package would never
 * install its new key. iTAK and TAK Tracker on iOS read only the unsuffixed (global) keys.
 */
const CLIENT_PREFERENCES: Record<
  TakVariant,
  { globalCertificateKeys: boolean; identity: 'atak' | 'tracker' | 'none' }
> = {
  atak: { globalCertificateKeys: false, identity: 'atak' },
  itak: { globalCertificateKeys: true, identity: 'none' },
  'tak-tracker': { globalCertificateKeys: true, identity: 'tracker' },
};

/** The tracker's role when the member has no preset (the value ATAK uses by default too). */
const DEFAULT_TRACKER_ROLE = 'Team Member';

/**
 * `server.pref` (docs/tak.md): one TLS stream to the TAK server with its own certificate keys
 * (relative `cert/...` locations), plus the unsuffixed keys for the clients that read only those,
 * and the member's callsign, team and role where the variant's client takes them.
 */
export function buildServerPref(options: ServerPrefOptions): string {
  const traits = CLIENT_PREFERENCES[options.variant];
  const certificateKeys: Entry[] = [
    entry('caLocation', `cert/${options.truststoreFile}`),
    entry('caPassword', options.truststorePassword),
    entry('certificateLocation', `cert/${options.keystoreFile}`),
    entry('clientPassword', options.callsign),
  ];
  const streams: Entry[] = [
    entry('count', 1),
    entry('description0', options.deployment),
    entry('enabled0', true),
    entry('connectString0', `${options.takHost}:${options.takPort}:ssl`),
    ...certificateKeys.map(([key, value, type]) => [`${key}0`, value, type] as const),
  ];
  const app: Entry[] = [entry('displayServerConnectionWidget', true)];
  if (traits.globalCertificateKeys) app.push(...certificateKeys);
  if (traits.identity === 'atak') {
    app.push(entry('locationCallsign', options.callsign));
    if (options.preset !== undefined) {
      app.push(entry('locationTeam', options.preset.team));
      app.push(entry('atakRoleType', options.preset.role));
    }
  }

  return [
    XML_DECLARATION,
    '<preferences>',
    ...group('cot_streams', streams),
    ...group('com.atakmap.app_preferences', app),
    ...(traits.identity === 'tracker'
      ? group('gov.tak.taktracker_preferences', [
          entry('callsign', options.callsign),
          entry('role', options.preset?.role ?? DEFAULT_TRACKER_ROLE),
        ])
      : []),
    '</preferences>',
    '',
  ].join('\n');
}
