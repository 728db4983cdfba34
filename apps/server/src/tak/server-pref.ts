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
}

type EntryClass = 'String' | 'Boolean' | 'Integer';
type Entry = readonly [key: string, value: string, type: EntryClass];

function entry(key: string, value: string | number | boolean): Entry {
  const type: EntryClass =
    typeof value === 'boolean' ? 'Boolean' : typeof value === 'number' ? 'Integer' : 'String';
  return [key, String(value), type];
}

function group(name: string, entries: readonly Entry[]): string[] {
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
 * `server.pref` (product.md §6): one TLS stream to the TAK server and where the two keystores
 * are, with relative `cert/...` locations. The tracker variant repeats the certificate keys with
 * the `0` suffix inside `cot_streams` (Android TAK Tracker reads those, the iOS one the plain
 * ones) and adds its own preference group.
 */
export function buildServerPref(options: ServerPrefOptions): string {
  const caLocation = `cert/${options.truststoreFile}`;
  const certificateLocation = `cert/${options.keystoreFile}`;
  const tracker = options.variant === 'tak-tracker';

  const streams: Entry[] = [
    entry('count', 1),
    entry('description0', options.deployment),
    entry('enabled0', true),
    entry('connectString0', `${options.takHost}:${options.takPort}:ssl`),
  ];
  if (tracker) {
    streams.push(
      entry('caLocation0', caLocation),
      entry('caPassword0', options.truststorePassword),
      entry('certificateLocation0', certificateLocation),
      entry('clientPassword0', options.callsign),
    );
  }
  const app: Entry[] = [
    entry('displayServerConnectionWidget', true),
    entry('caLocation', caLocation),
    entry('caPassword', options.truststorePassword),
    entry('certificateLocation', certificateLocation),
    entry('clientPassword', options.callsign),
  ];
  if (options.variant === 'atak') app.push(entry('locationCallsign', options.callsign));

  return [
    XML_DECLARATION,
    '<preferences>',
    ...group('cot_streams', streams),
    ...group('com.atakmap.app_preferences', app),
    ...(tracker
      ? group('gov.tak.taktracker_preferences', [
          entry('callsign', options.callsign),
          entry('role', 'Team Member'),
        ])
      : []),
    '</preferences>',
    '',
  ].join('\n');
}
