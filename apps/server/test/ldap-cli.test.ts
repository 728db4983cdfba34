import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Portal } from '../src/portal.js';
import { withPortalIn } from './support/data-dir-portal.js';
import { insertMember } from '../src/modules/people/repository.js';
import { run } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';
import { startSlapd, type SlapdDirectory } from './support/slapd.js';

// `npm run portal -- ldap sync [--dry-run]` and `revoke` with a directory, through the built CLI
// (`npm test` builds first) against Debian's slapd (scripts/with-slapd.sh).

const CLI = path.join(SERVER_DIST, 'cli.js');

let workDir: string;
let slapd: SlapdDirectory;
let env: NodeJS.ProcessEnv;

const cli = (args: string[], extra: NodeJS.ProcessEnv = env) =>
  run('node', [CLI, ...args], { cwd: workDir, env: extra });

const withPortal = <T>(work: (portal: Portal) => Promise<T>): Promise<T> =>
  withPortalIn(workDir, work);

const userCns = async () =>
  (await slapd.search(`ou=users,${slapd.baseDn}`, { scope: 'one' }).catch(() => []))
    .map((entry) => String(entry.cn))
    .sort();

beforeAll(async () => {
  slapd = await startSlapd();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-ldap-cli-'));
  const passwordFile = path.join(workDir, 'ldap-password');
  await writeFile(passwordFile, slapd.portalPassword, { mode: 0o600 });
  env = {
    ...process.env,
    PORTAL_DATA_DIR: path.join(workDir, 'data'),
    PORTAL_LOG_LEVEL: 'silent',
    PORTAL_LDAP_URL: slapd.url,
    PORTAL_LDAP_BIND_DN: slapd.portalDn,
    PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
    PORTAL_LDAP_BASE_DN: slapd.baseDn,
  };
  delete env.DATABASE_URL;
  await withPortal(async (portal) => {
    for (const callsign of ['Hawk1', 'Hawk2']) {
      await insertMember(portal.database.db, {
        callsign,
        status: 'active',
        inviteCode: null,
        roles: callsign === 'Hawk1' ? ['admin'] : [],
        at: Date.now(),
      });
    }
  });
});

afterAll(async () => {
  await slapd.destroy();
  await rm(workDir, { recursive: true, force: true });
});

describe('ldap sync', () => {
  it('--dry-run prints the difference and writes nothing', async () => {
    const result = await cli(['ldap', 'sync', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const users = `ou=users,${slapd.baseDn}`;
    expect(result.stdout).toContain(`add    cn=Hawk1,${users}\n`);
    expect(result.stdout).toContain(`add    cn=Hawk2,${users}\n`);
    expect(result.stdout).toContain(`add    cn=admins,ou=groups,${slapd.baseDn}\n`);
    expect(result.stdout).toMatch(/3 to add, 0 to modify, 0 to delete; nothing written\n$/);
    expect(await userCns()).toEqual([]);
  });

  it('writes the difference, and then has nothing left to do', async () => {
    const result = await cli(['ldap', 'sync']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/: 3 added, 0 modified, 0 deleted\n$/);
    expect(await userCns()).toEqual(['Hawk1', 'Hawk2']);
    const again = await cli(['ldap', 'sync', '--dry-run']);
    expect(again.stdout).toMatch(/0 to add, 0 to modify, 0 to delete/);
  });

  it('revoke takes the member out of the directory before the command ends', async () => {
    const result = await cli(['revoke', 'Hawk2']);
    expect(result.code, result.stderr).toBe(0);
    expect(await userCns()).toEqual(['Hawk1']);
  });

  it('says what to set when no directory is configured', async () => {
    const bare = { ...env };
    delete bare.PORTAL_LDAP_URL;
    delete bare.PORTAL_LDAP_BIND_DN;
    delete bare.PORTAL_LDAP_BIND_PASSWORD_FILE;
    delete bare.PORTAL_LDAP_BASE_DN;
    const result = await cli(['ldap', 'sync', '--dry-run'], bare);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no directory configured: set PORTAL_LDAP_URL');
  });

  it('refuses to start with a half-given directory, naming what is missing', async () => {
    const half = { ...env };
    delete half.PORTAL_LDAP_BASE_DN;
    const result = await cli(['ldap', 'sync'], half);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('PORTAL_LDAP_BASE_DN: required with the other PORTAL_LDAP_*');
  });
});
