import { escapeXml } from './xml.js';

export interface ManifestOptions {
  /** Stable per member and variant (see `packageUid`). */
  uid: string;
  /** The deployment name, shown by the client when it imports the package. */
  name: string;
  /** Every file at the root of the zip, in zip order; the manifest itself is not listed. */
  entries: readonly string[];
  /** The client deletes the package once imported (default false: it stays in its list). */
  onReceiveDelete?: boolean;
}

/**
 * `MANIFEST/manifest.xml` of a TAK data package (docs/tak.md): imported on receipt, kept
 * afterwards unless `onReceiveDelete`, one `Content` per file of the package.
 */
export function buildManifest(options: ManifestOptions): string {
  const parameter = (name: string, value: string) =>
    `    <Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<MissionPackageManifest version="2">',
    '  <Configuration>',
    parameter('uid', options.uid),
    parameter('name', options.name),
    parameter('onReceiveImport', 'true'),
    parameter('onReceiveDelete', String(options.onReceiveDelete ?? false)),
    '  </Configuration>',
    '  <Contents>',
    ...options.entries.map(
      (entry) => `    <Content ignore="false" zipEntry="${escapeXml(entry)}"/>`,
    ),
    '  </Contents>',
    '</MissionPackageManifest>',
    '',
  ].join('\n');
}
