import { strToU8 } from 'fflate';
import {
  buildDataPackage,
  settingsFileNames,
  TAK_PACKAGE_UID_NAMESPACE,
  truststoreFileName,
  type PackageFile,
} from './packages.js';
import type { Preset } from '@callsign/contract';
import { entry, group, type Entry } from './server-pref.js';
import { uuidV5 } from './uuid-v5.js';
import { XML_DECLARATION } from './xml.js';

/**
 * The two data packages of one-scan enrollment (docs/tak.md): the profile a TAK client fetches
 * right after it enrolled, and the trust package a member imports first where the enrollment
 * face's certificate is one a phone does not trust by itself.
 */

function preferences(groups: readonly (readonly [string, readonly Entry[]])[]): string {
  return [
    XML_DECLARATION,
    '<preferences>',
    ...groups.flatMap(([name, entries]) => group(name, entries)),
    '</preferences>',
    '',
  ].join('\n');
}

const PROFILE_FILE = 'enrollment.pref';

export interface TakEnrollmentProfileOptions {
  takHost: string;
  deployment: string;
  /** As the member's record has it. */
  callsign: string;
  preset: Preset;
}

/**
 * `GET tls/profile/enrollment`: the member's callsign, team and role for ATAK to apply. It leaves
 * the connections alone: the enrollment has just made the one to the TAK server, and a
 * `cot_streams` group here would add a second one or start another enrollment. ATAK deletes the
 * package once imported, as it does TAK Server's.
 */
export function buildTakEnrollmentProfile(options: TakEnrollmentProfileOptions): Uint8Array {
  const pref = preferences([
    [
      'com.atakmap.app_preferences',
      [
        entry('locationCallsign', options.callsign),
        entry('locationTeam', options.preset.team),
        entry('atakRoleType', options.preset.role),
      ],
    ],
  ]);
  return buildDataPackage({
    uid: uuidV5(
      `${options.takHost}|${options.callsign}|enrollment-profile`,
      TAK_PACKAGE_UID_NAMESPACE,
    ),
    name: `${options.deployment} profile`,
    onReceiveDelete: true,
    files: [[PROFILE_FILE, strToU8(pref), 6]],
  });
}

export interface TrustPackageOptions {
  takHost: string;
  takPort: number;
  deployment: string;
  /** The user name ATAK asks for before it enrolls: the callsign as recorded. */
  callsign: string;
  /** Certificates only (the chain that validates the enrollment face and the TAK server). */
  truststore: Uint8Array;
  truststorePassword: string;
  /**
   * `itak`: iTAK's form, which reads only the unsuffixed certificate keys and, in older
   * versions, a root `config.pref` (as the iTAK settings package has them); `atak` otherwise.
   */
  client: 'atak' | 'itak';
}

/**
 * `GET /api/v1/tak/trust-package`: one connection to the TAK server that enrolls for its
 * certificate itself (`enrollForCertificateWithTrust`), with the truststore it needs to trust the
 * enrollment face, and no key at all: it is not a credential. ATAK asks for the user name and
 * password (callsign and token) when it imports it, enrolls on port 8446 of the same host, and
 * trusts that face by the imported truststore. `username0` is written for clients that read it;
 * ATAK 4.x asks either way. No `cacheCreds0`: a one-time token is not worth keeping.
 */
export function buildTrustPackage(options: TrustPackageOptions): Uint8Array {
  const truststoreFile = truststoreFileName(options.deployment);
  const caLocation = `cert/${truststoreFile}`;
  const app: Entry[] = [entry('displayServerConnectionWidget', true)];
  if (options.client === 'itak') {
    app.push(entry('caLocation', caLocation), entry('caPassword', options.truststorePassword));
  }
  const pref = strToU8(
    preferences([
      [
        'cot_streams',
        [
          entry('count', 1),
          entry('description0', options.deployment),
          entry('enabled0', true),
          entry('connectString0', `${options.takHost}:${options.takPort}:ssl`),
          entry('caLocation0', caLocation),
          entry('caPassword0', options.truststorePassword),
          entry('enrollForCertificateWithTrust0', true),
          entry('useAuth0', true),
          entry('username0', options.callsign),
        ],
      ],
      ['com.atakmap.app_preferences', app],
    ]),
  );
  return buildDataPackage({
    uid: uuidV5(
      `${options.takHost}|${options.callsign}|trust${options.client === 'itak' ? '|itak' : ''}`,
      TAK_PACKAGE_UID_NAMESPACE,
    ),
    name: options.deployment,
    files: [
      ...settingsFileNames(options.client).map((name): PackageFile => [name, pref, 6]),
      [truststoreFile, options.truststore, 0],
    ],
  });
}
