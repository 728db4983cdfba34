// TAK Server's UserAuthenticationFile.xml (its file authenticator, `<auth><File>`), as the schema
// TAK Server ships for it has it (TAK-Product-Center/Server,
// src/takserver-common/src/main/xsd/UserAuthenticationFile.xsd): in the namespace
// http://bbn.com/marti/xml/bindings, one <User identifier fingerprint> per user, its
// <groupList> (in and out), then <groupListIN>, then <groupListOUT> elements, in that order.

export const USER_FILE_NAMESPACE = 'http://bbn.com/marti/xml/bindings';

export interface UserFileEntry {
  /** The certificate's CN: the callsign (TAK Server also matches a user by it). */
  identifier: string;
  /** The newest key's SHA-256 fingerprint as TAK Server writes it; absent when unknown. */
  fingerprint?: string | undefined;
  groups: readonly { name: string; direction: 'both' | 'in' | 'out' }[];
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function userAuthenticationFile(users: readonly UserFileEntry[]): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
    `<UserAuthenticationFile xmlns="${USER_FILE_NAMESPACE}">`,
  ];
  for (const user of users) {
    const fingerprint =
      user.fingerprint === undefined ? '' : ` fingerprint="${escapeXml(user.fingerprint)}"`;
    const element = (name: string, direction: 'both' | 'in' | 'out') =>
      user.groups
        .filter((group) => group.direction === direction)
        .map((group) => `    <${name}>${escapeXml(group.name)}</${name}>`);
    const children = [
      ...element('groupList', 'both'),
      ...element('groupListIN', 'in'),
      ...element('groupListOUT', 'out'),
    ];
    const open = `  <User identifier="${escapeXml(user.identifier)}"${fingerprint}`;
    lines.push(children.length === 0 ? `${open}/>` : `${open}>`, ...children);
    if (children.length > 0) lines.push('  </User>');
  }
  lines.push('</UserAuthenticationFile>', '');
  return lines.join('\n');
}
