import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { run } from './processes.js';
import { REPO_ROOT } from './repo.js';

/** What scripts/with-slapd.sh makes: the directory a TAK unit would have (see the script). */
export interface SlapdDirectory {
  /** The instance's own folder (its configuration and data): a test may keep files there. */
  dataDir: string;
  url: string;
  suffix: string;
  baseDn: string;
  rootDn: string;
  rootPassword: string;
  portalDn: string;
  portalPassword: string;
  takDn: string;
  takPassword: string;
  /** Stops the server (its data stays); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
  /** Searches as the root (or the given account); entries as ldapts answers them. */
  search(
    base: string,
    options?: { scope?: 'base' | 'one' | 'sub'; filter?: string; attributes?: string[] },
    as?: { dn: string; password: string },
  ): Promise<Record<string, unknown>[]>;
}

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'with-slapd.sh');

async function script(mode: '--start' | '--stop', dir: string): Promise<string> {
  const result = await run('bash', [SCRIPT, mode, dir]);
  if (result.code !== 0) throw new Error(`with-slapd.sh ${mode} failed: ${result.stderr}`);
  return result.stdout;
}

/** A throw-away slapd of this test's own (scripts/with-slapd.sh --start), on a free port. */
export async function startSlapd(): Promise<SlapdDirectory> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-slapd-test-'));
  const vars = Object.fromEntries(
    (await script('--start', dir))
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)];
      }),
  ) as Record<string, string>;
  const get = (name: string) => {
    const value = vars[`PORTAL_TEST_LDAP_${name}`];
    if (value === undefined) throw new Error(`with-slapd.sh gave no PORTAL_TEST_LDAP_${name}`);
    return value;
  };
  const directory: SlapdDirectory = {
    dataDir: dir,
    url: get('URL'),
    suffix: get('SUFFIX'),
    baseDn: get('BASE_DN'),
    rootDn: get('ROOT_DN'),
    rootPassword: get('ROOT_PASSWORD'),
    portalDn: get('PORTAL_DN'),
    portalPassword: get('PORTAL_PASSWORD'),
    takDn: get('TAK_DN'),
    takPassword: get('TAK_PASSWORD'),
    stop: async () => {
      await script('--stop', dir);
    },
    start: async () => {
      await script('--start', dir);
    },
    destroy: async () => {
      await script('--stop', dir);
      await rm(dir, { recursive: true, force: true });
    },
    async search(base, options = {}, as) {
      const client = new Client({ url: directory.url, timeout: 5000, connectTimeout: 5000 });
      try {
        await client.bind(as?.dn ?? directory.rootDn, as?.password ?? directory.rootPassword);
        const { searchEntries } = await client.search(base, {
          scope: options.scope ?? 'sub',
          filter: options.filter ?? '(objectClass=*)',
          ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
        });
        return searchEntries;
      } finally {
        await client.unbind();
      }
    },
  };
  return directory;
}
