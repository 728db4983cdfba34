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

/**
 * A name as LDAP compares a cn (caseIgnoreMatch): case folded, spaces at the ends dropped and
 * inner runs of spaces one. Two names equal here are one entry to the directory.
 */
export function ldapName(value: string): string {
  return value.trim().replace(/ {2,}/g, ' ').toLowerCase();
}

/** Groups of the database that LDAP sees as one: none of their entries is written or deleted. */
export interface HeldGroups {
  /** The ldapName of every cn of the held groups (each direction). */
  cns: Set<string>;
  /** Per clash: the DN of its entry (direction both) and why it is held. */
  failures: { dn: string; error: string }[];
}

/**
 * The groups whose entries would clash in the directory: two names the database holds apart
 * (made before they were compared as LDAP does, docs/directory.md) but one cn to LDAP, for any
 * direction. Their entries are left as the directory has them, and the clash is named.
 */
export function heldGroups(state: PublishedState, layout: Layout): HeldGroups {
  const owners = new Map<string, string[]>();
  for (const group of state.groups) {
    for (const direction of Object.keys(DIRECTION_SUFFIX) as Direction[]) {
      const key = ldapName(groupCn(layout, group.name, direction));
      owners.set(key, [...(owners.get(key) ?? []), group.name]);
    }
  }
  const held: HeldGroups = { cns: new Set(), failures: [] };
  const clashes = new Map<string, string[]>();
  for (const names of owners.values()) {
    if (names.length < 2) continue;
    const first = [...names].sort()[0] ?? '';
    clashes.set(ldapName(first), [...new Set([...(clashes.get(ldapName(first)) ?? []), ...names])]);
  }
  for (const names of clashes.values()) {
    const sortedNames = [...names].sort();
    for (const name of sortedNames) {
      for (const direction of Object.keys(DIRECTION_SUFFIX) as Direction[]) {
        held.cns.add(ldapName(groupCn(layout, name, direction)));
      }
    }
    const quoted = sortedNames.map((name) => `"${name}"`);
    held.failures.push({
      dn: groupDn(layout, groupCn(layout, sortedNames[0] ?? '', 'both')),
      error:
        `The groups ${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''} are one group to LDAP ` +
        '(it compares names in any case, spaces at the ends dropped and runs of spaces as one): ' +
        'their entries are left as they are until one of them is deleted',
    });
  }
  return held;
}

/** Whether `entry` is a group entry of a held group. */
export function isHeld(entry: Entry, held: HeldGroups): boolean {
  const cn = entry.attributes.cn?.[0];
  return cn !== undefined && held.cns.has(ldapName(cn));
}

/** How two DNs are compared: in any case, without spaces after the commas. */
export function entryKey(dn: string): string {
  return dn.replace(/,\s+/g, ',').toLowerCase();
}

/**
 * Every entry the portal's subtree should hold under ou=users and ou=groups: one per active
 * member (inetOrgPerson, cn and uid the callsign) and one groupOfNames per group and direction
 * that has members (groupOfNames needs a member), plus the admins group while there are admins;
 * none for the `held` groups.
 */
export function desiredEntries(
  state: PublishedState,
  layout: Layout,
  held?: HeldGroups,
): Map<string, Entry> {
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
      if (held?.cns.has(ldapName(cn)) === true) continue;
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
