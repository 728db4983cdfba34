import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditAction } from '@callsign/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Portal } from '../src/portal.js';
import { withPortalIn } from './support/data-dir-portal.js';
import { insertMember } from '../src/modules/people/repository.js';
import { run } from './support/processes.js';
import { REPO_ROOT, SERVER_DIST } from './support/repo.js';

// `npm run portal -- tak user-file` through the built CLI (`npm test` builds first): TAK Server's
// UserAuthenticationFile.xml, checked with xmllint against the structure of TAK Server's own
// schema (fixtures/user-authentication-file.xsd) and its fingerprints against TAK Server's way of
// computing them, in a JVM (jvm/TakFingerprint.java).

const CLI = path.join(SERVER_DIST, 'cli.js');
const SCHEMA = fileURLToPath(new URL('./fixtures/user-authentication-file.xsd', import.meta.url));
const FINGERPRINT = fileURLToPath(new URL('./jvm/TakFingerprint.java', import.meta.url));
const ACTOR = { callsign: 'test', clientAddress: null };

let workDir: string;
let env: NodeJS.ProcessEnv;
const keys: Record<string, string> = {};

const withPortal = <T>(work: (portal: Portal) => Promise<T>): Promise<T> =>
  withPortalIn(workDir, work);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-user-file-'));
  env = { ...process.env, PORTAL_DATA_DIR: path.join(workDir, 'data'), PORTAL_LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  await withPortal(async (portal) => {
    const db = portal.database.db;
    for (const callsign of ['Alpha1', 'Bravo2', 'Gone3']) {
      await insertMember(db, { callsign, status: 'active', inviteCode: null, roles: [], at: 1 });
    }
    const issue = (callsign: string) =>
      portal.certificates.issueForMember({
        callsign,
        purpose: 'browser',
        key: { generate: portal.certificates.memberKeyAlgorithm },
        actor: ACTOR,
        audit: { action: 'test.issue-key' as AuditAction },
      });
    await issue('Alpha1');
    keys.Alpha1 = (await issue('Alpha1')).certificatePem;
    await issue('Gone3');
    for (const name of ['Red', 'Blue', 'HQ Net']) {
      await portal.services.groups.create(ACTOR, { name, description: '' });
    }
    await portal.services.groups.setForMember(ACTOR, 'Alpha1', [
      { name: 'Red', direction: 'both' },
      { name: 'Blue', direction: 'out' },
      { name: 'HQ Net', direction: 'in' },
    ]);
    await portal.services.memberCommands.revoke(ACTOR, 'Gone3');
  });
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('tak user-file', () => {
  it('lists active members with their newest key and groups, valid against the schema', async () => {
    const out = path.join(workDir, 'UserAuthenticationFile.xml');
    const result = await run('node', [CLI, 'tak', 'user-file', '--out', out], {
      cwd: workDir,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `UserAuthenticationFile.xml: 2 member(s), 1 with a key fingerprint, written to ${out}\n`,
    );
    const xml = await readFile(out, 'utf8');
    const valid = await run('xmllint', ['--noout', '--schema', SCHEMA, out]);
    expect(valid.code, valid.stderr).toBe(0);

    const certFile = path.join(workDir, 'alpha1.pem');
    await writeFile(certFile, keys.Alpha1 ?? '');
    const java = await run('java', [FINGERPRINT, certFile], { timeout: 120_000 });
    expect(java.code, java.stderr).toBe(0);
    const fingerprint = java.stdout.trim();
    expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(xml).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
        '<UserAuthenticationFile xmlns="http://bbn.com/marti/xml/bindings">',
        `  <User identifier="Alpha1" fingerprint="${fingerprint}">`,
        '    <groupList>Red</groupList>',
        '    <groupListIN>HQ Net</groupListIN>',
        '    <groupListOUT>Blue</groupListOUT>',
        '  </User>',
        '  <User identifier="Bravo2"/>',
        '</UserAuthenticationFile>',
        '',
      ].join('\n'),
    );
  });

  it('writes to stdout without --out, the summary on stderr', async () => {
    const result = await run('node', [CLI, 'tak', 'user-file'], { cwd: workDir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^<\?xml/);
    expect(result.stderr).toContain('2 member(s), 1 with a key fingerprint');
  });

  it('refresh-user-file.sh installs a changed file and reloads, and leaves an unchanged one', async () => {
    const target = path.join(workDir, 'tak', 'UserAuthenticationFile.xml');
    const reloads = path.join(workDir, 'reloads');
    const refresh = () =>
      run('bash', [path.join(REPO_ROOT, 'deploy', 'tak-server', 'refresh-user-file.sh')], {
        env: {
          ...env,
          PORTAL_DIR: REPO_ROOT,
          TARGET: target,
          RELOAD_COMMAND: `echo reload >> ${reloads}`,
        },
      });
    await run('mkdir', ['-p', path.dirname(target)]);
    const first = await refresh();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('UserAuthenticationFile: installed (2 users)\n');
    const second = await refresh();
    expect(second.stdout).toBe('UserAuthenticationFile: unchanged\n');
    await withPortal((portal) =>
      portal.services.groups.setForMember(ACTOR, 'Bravo2', [{ name: 'Red', direction: 'both' }]),
    );
    const third = await refresh();
    expect(third.stdout).toBe('UserAuthenticationFile: installed (2 users)\n');
    expect(await readFile(target, 'utf8')).toContain(
      '<User identifier="Bravo2">\n    <groupList>Red</groupList>',
    );
    expect(await readFile(reloads, 'utf8')).toBe('reload\nreload\n');
  });
});
