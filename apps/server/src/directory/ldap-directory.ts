import {
  Attribute,
  Change,
  Client,
  InvalidCredentialsError,
  NoSuchObjectError,
  ResultCodeError,
  SizeLimitExceededError,
  type Entry as LdapEntry,
} from 'ldapts';
import {
  containerEntries,
  desiredEntries,
  difference,
  entryKey,
  groupsDn,
  heldGroups,
  isHeld,
  MANAGED_ATTRIBUTES,
  usersDn,
  type Difference,
  type Entry,
  type Layout,
  type PublishedState,
} from './entries.js';

export interface LdapDirectoryOptions {
  url: string;
  bindDn: string;
  bindPassword: string;
  layout: Layout;
  /** How long one connection or operation may take. */
  timeoutMs?: number;
  /** The certificates an ldaps:// server's chain may end in (PEM); absent: Node's defaults. */
  trustedCaPem?: readonly string[];
}

/** Entries a search asks for at a time (the paged-results control, RFC 2696). */
export const SEARCH_PAGE_SIZE = 200;

/** An entry the directory refused to write (or the portal held back), and why. */
export interface EntryFailure {
  dn: string;
  error: string;
}

/** What a sync changed, and the entries it could not write: the rest was written regardless. */
export interface SyncOutcome {
  diff: Difference;
  failures: EntryFailure[];
}

/** Why the directory could not be brought to the database's truth, in words for an operator. */
export class DirectoryUnavailableError extends Error {
  override readonly name = 'DirectoryUnavailableError';
}

function attributesOf(entry: LdapEntry): Record<string, string[]> {
  const attributes: Record<string, string[]> = {};
  for (const name of MANAGED_ATTRIBUTES) {
    const key = Object.keys(entry).find((field) => field.toLowerCase() === name.toLowerCase());
    const value = key === undefined ? undefined : entry[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    attributes[name] = values.map((item) => (Buffer.isBuffer(item) ? item.toString('utf8') : item));
  }
  return attributes;
}

/**
 * The portal's subtree of an LDAP directory (docs/directory.md), through ldapts. It reads and
 * writes only the entries one level below `ou=users,{base}` and `ou=groups,{base}` (and those two
 * containers): nothing outside the base DN is ever searched, written or deleted.
 */
export class LdapDirectory {
  constructor(private readonly options: LdapDirectoryOptions) {}

  get layout(): Layout {
    return this.options.layout;
  }

  /**
   * Brings the subtree to `state` and answers what it changed; with `dryRun`, changes nothing
   * and answers what it would change. Throws DirectoryUnavailableError when the directory cannot
   * be reached, refuses the bind or lacks the base DN. An entry the directory refuses stops
   * nothing: it is named among the failures, as are groups LDAP sees as one (heldGroups).
   */
  async sync(state: PublishedState, options: { dryRun?: boolean } = {}): Promise<SyncOutcome> {
    return this.withClient(async (client) => {
      const { layout } = this.options;
      await this.requireBase(client);
      const held = heldGroups(state, layout);
      const current = new Map<string, Entry>();
      for (const container of containerEntries(layout)) {
        const found = await this.searchChildren(client, container.dn);
        if (found === undefined) {
          if (options.dryRun !== true) await client.add(container.dn, container.attributes);
          continue;
        }
        for (const entry of found) {
          if (!isHeld(entry, held)) current.set(entryKey(entry.dn), entry);
        }
      }
      const diff = difference(current, desiredEntries(state, layout, held));
      const failures = options.dryRun === true ? [] : await this.apply(client, diff);
      return { diff, failures: [...failures, ...held.failures] };
    });
  }

  /** Every entry of the subtree's two containers (for checks and tests). */
  async entries(): Promise<Map<string, Entry>> {
    return this.withClient(async (client) => {
      const entries = new Map<string, Entry>();
      for (const container of containerEntries(this.options.layout)) {
        for (const entry of (await this.searchChildren(client, container.dn)) ?? []) {
          entries.set(entryKey(entry.dn), entry);
        }
      }
      return entries;
    });
  }

  /**
   * Writes the difference, removals first (groups before the users they named), then users
   * before the groups that name them (the memberof overlay fills in memberOf only for users that
   * exist). Answers the entries the directory refused; an error that is no LDAP answer (the
   * connection lost) ends the sync.
   */
  private async apply(client: Client, diff: Difference): Promise<EntryFailure[]> {
    const users = entryKey(usersDn(this.options.layout));
    const inUsers = (dn: string) => entryKey(dn).endsWith(`,${users}`);
    const failures: EntryFailure[] = [];
    const attempt = async (dn: string, write: () => Promise<unknown>) => {
      try {
        await write();
      } catch (error) {
        if (!(error instanceof ResultCodeError)) throw error;
        failures.push({ dn, error: `The directory refused it: ${error.message}` });
      }
    };
    const deletes = [...diff.delete].sort((a, b) => Number(inUsers(a)) - Number(inUsers(b)));
    for (const dn of deletes) await attempt(dn, () => client.del(dn));
    const adds = [...diff.add].sort((a, b) => Number(inUsers(b.dn)) - Number(inUsers(a.dn)));
    const addOf = (entry: Entry) => attempt(entry.dn, () => client.add(entry.dn, entry.attributes));
    for (const entry of adds.filter((entry) => inUsers(entry.dn))) await addOf(entry);
    for (const { dn, replace } of diff.modify) {
      const changes = Object.entries(replace).map(
        ([type, values]) =>
          new Change({ operation: 'replace', modification: new Attribute({ type, values }) }),
      );
      await attempt(dn, () => client.modify(dn, changes));
    }
    for (const entry of adds.filter((entry) => !inUsers(entry.dn))) await addOf(entry);
    return failures;
  }

  private async requireBase(client: Client): Promise<void> {
    const { baseDn } = this.options.layout;
    try {
      await client.search(baseDn, {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['1.1'],
      });
    } catch (error) {
      if (error instanceof NoSuchObjectError) {
        throw new DirectoryUnavailableError(
          `The base DN ${baseDn} (PORTAL_LDAP_BASE_DN) does not exist in the directory: create it (deploy/ldap/) or correct the setting`,
        );
      }
      throw error;
    }
  }

  /** The entries one level below `dn`; undefined when `dn` does not exist. */
  private async searchChildren(client: Client, dn: string): Promise<Entry[] | undefined> {
    try {
      // In pages: a server's size limit (slapd's default is 500 entries) applies per page.
      const { searchEntries } = await client.search(dn, {
        scope: 'one',
        filter: '(objectClass=*)',
        attributes: [...MANAGED_ATTRIBUTES],
        paged: { pageSize: SEARCH_PAGE_SIZE },
      });
      return searchEntries.map((entry) => ({ dn: entry.dn, attributes: attributesOf(entry) }));
    } catch (error) {
      if (error instanceof NoSuchObjectError) return undefined;
      if (error instanceof SizeLimitExceededError) {
        throw new DirectoryUnavailableError(
          `The directory lists at most a size limit of entries under ${dn} to ${this.options.bindDn}: lift it for that account (OpenLDAP: limits dn.exact="${this.options.bindDn}" size=unlimited, as deploy/ldap/slapd.conf.template has it)`,
        );
      }
      throw error;
    }
  }

  private async withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const { url, bindDn, bindPassword, timeoutMs = 5000, trustedCaPem } = this.options;
    const client = new Client({
      url,
      timeout: timeoutMs,
      connectTimeout: timeoutMs,
      // Only for ldaps://: ldapts opens TLS whenever it is given TLS options, on ldap:// too.
      ...(trustedCaPem === undefined || !url.toLowerCase().startsWith('ldaps:')
        ? {}
        : { tlsOptions: { ca: [...trustedCaPem] } }),
    });
    try {
      try {
        await client.bind(bindDn, bindPassword);
      } catch (error) {
        if (error instanceof InvalidCredentialsError) {
          throw new DirectoryUnavailableError(
            `The directory at ${url} refused the bind as ${bindDn}: check PORTAL_LDAP_BIND_DN and the password in PORTAL_LDAP_BIND_PASSWORD_FILE`,
          );
        }
        const reason = error instanceof Error ? error.message : String(error);
        throw new DirectoryUnavailableError(`Cannot reach the directory at ${url}: ${reason}`);
      }
      return await work(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}

export { groupsDn, usersDn };
export type { Difference, Entry, Layout, PublishedState };
