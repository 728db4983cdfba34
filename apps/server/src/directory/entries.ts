// What the portal's subtree of an LDAP directory holds (docs/directory.md), as
// plain data: built from the database's truth, compared with what the directory has. Knows no
// module: the caller passes the members and groups.

/** TAK Server's direction of a member in a group. */
export type Direction = 'both' | 'in' | 'out';

export interface PublishedState {
  groups: readonly { name: string; description: string }[];
  members: readonly {
    callsign: string;
    admin: boolean;
    groups: readonly { name: string; direction: Direction }[];
  }[];
}

export interface Layout {
  /** The subtree the portal owns, e.g. ou=callsign-portal,dc=unit,dc=example. */
  baseDn: string;
  /** Put before every group's name (`PORTAL_LDAP_GROUP_PREFIX`, default tak_). */
  groupPrefix: string;
}

/** An entry: its object classes and attributes, each a set of values (sorted). */
export interface Entry {
  dn: string;
  attributes: Record<string, string[]>;
}

/**
 * TAK Server's LDAP authenticator (LdapAuthenticator.groupNamesToGroups) reads a group whose
 * name ends in its readGroupSuffix (default `_READ`) as OUT only (receive) and one ending in
 * writeGroupSuffix (`_WRITE`) as IN only (send); any other name is both.
 */
export const DIRECTION_SUFFIX: Record<Direction, string> = { both: '', in: '_WRITE', out: '_READ' };

/** The group entry every active admin of the portal is a member of. */
export const ADMINS_GROUP_CN = 'admins';

/** Escapes a value for an RDN (RFC 4514). */
export function escapeRdnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (char) => `\\${char}`)
    .replace(/^[ #]/, (char) => `\\${char}`)
    .replace(/ $/, '\\ ');
}

export function usersDn(layout: Layout): string {
  return `ou=users,${layout.baseDn}`;
}

export function groupsDn(layout: Layout): string {
  return `ou=groups,${layout.baseDn}`;
}

/** cn={callsign},ou=users,{base}: the DN TAK Server's userstring finds (cn={username},...). */
export function userDn(layout: Layout, callsign: string): string {
  return `cn=${escapeRdnValue(callsign)},${usersDn(layout)}`;
}

export function groupCn(layout: Layout, name: string, direction: Direction): string {
  return `${layout.groupPrefix}${name}${DIRECTION_SUFFIX[direction]}`;
}

function groupDn(layout: Layout, cn: string): string {
  return `cn=${escapeRdnValue(cn)},${groupsDn(layout)}`;
}

/** The two containers the portal makes under its base DN. */
export function containerEntries(layout: Layout): Entry[] {
  return [
    { dn: usersDn(layout), attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
    { dn: groupsDn(layout), attributes: { objectClass: ['organizationalUnit'], ou: ['groups'] } },
  ];
}

const sorted = (values: Iterable<string>) => [...values].sort();

/** How two DNs are compared: in any case, without spaces after the commas. */
export function entryKey(dn: string): string {
  return dn.replace(/,\s+/g, ',').toLowerCase();
}

/**
 * Every entry the portal's subtree should hold under ou=users and ou=groups: one per active
 * member (inetOrgPerson, cn and uid the callsign) and one groupOfNames per group and direction
 * that has members (groupOfNames needs a member), plus the admins group while there are admins.
 */
export function desiredEntries(state: PublishedState, layout: Layout): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const groupMembers = new Map<string, { description: string; members: Set<string> }>();
  const descriptions = new Map(state.groups.map((group) => [group.name, group.description]));
  const admins = new Set<string>();
  for (const member of state.members) {
    const dn = userDn(layout, member.callsign);
    entries.set(entryKey(dn), {
      dn,
      attributes: {
        objectClass: ['inetOrgPerson'],
        cn: [member.callsign],
        sn: [member.callsign],
        uid: [member.callsign],
      },
    });
    if (member.admin) admins.add(dn);
    for (const group of member.groups) {
      const cn = groupCn(layout, group.name, group.direction);
      const published = groupMembers.get(cn) ?? {
        description: descriptions.get(group.name) ?? '',
        members: new Set<string>(),
      };
      published.members.add(dn);
      groupMembers.set(cn, published);
    }
  }
  for (const [cn, { description, members }] of groupMembers) {
    const dn = groupDn(layout, cn);
    entries.set(entryKey(dn), {
      dn,
      attributes: {
        objectClass: ['groupOfNames'],
        cn: [cn],
        member: sorted(members),
        ...(description === '' ? {} : { description: [description] }),
      },
    });
  }
  if (admins.size > 0) {
    const dn = groupDn(layout, ADMINS_GROUP_CN);
    entries.set(entryKey(dn), {
      dn,
      attributes: {
        objectClass: ['groupOfNames'],
        cn: [ADMINS_GROUP_CN],
        member: sorted(admins),
        description: ['Administrators of the Callsign Portal'],
      },
    });
  }
  return entries;
}

/** The attributes the portal writes and compares (objectClass is set once, at add). */
export const MANAGED_ATTRIBUTES = ['cn', 'sn', 'uid', 'member', 'description'] as const;

export interface Difference {
  add: Entry[];
  /** Entries whose managed attributes differ: each with the attributes to replace. */
  modify: { dn: string; replace: Record<string, string[]> }[];
  /** DNs in the subtree that should not be there. */
  delete: string[];
}

/** What turns `current` (the directory's entries under ou=users and ou=groups) into `desired`. */
export function difference(
  current: ReadonlyMap<string, Entry>,
  desired: ReadonlyMap<string, Entry>,
): Difference {
  const result: Difference = { add: [], modify: [], delete: [] };
  for (const [key, entry] of desired) {
    const existing = current.get(key);
    if (existing === undefined) {
      result.add.push(entry);
      continue;
    }
    const replace: Record<string, string[]> = {};
    for (const attribute of MANAGED_ATTRIBUTES) {
      const want = entry.attributes[attribute] ?? [];
      const have = existing.attributes[attribute] ?? [];
      const key = (value: string) => (attribute === 'member' ? entryKey(value) : value);
      const wanted = want.map(key).sort();
      const had = have.map(key).sort();
      const same =
        wanted.length === had.length && wanted.every((value, index) => value === had[index]);
      // The RDN's cn cannot be replaced; a cn differing in case only is the same entry.
      if (!same && attribute !== 'cn') replace[attribute] = want;
    }
    if (Object.keys(replace).length > 0) result.modify.push({ dn: existing.dn, replace });
  }
  for (const [key, entry] of current) {
    if (!desired.has(key)) result.delete.push(entry.dn);
  }
  return result;
}

export function isEmpty(diff: Difference): boolean {
  return diff.add.length === 0 && diff.modify.length === 0 && diff.delete.length === 0;
}
