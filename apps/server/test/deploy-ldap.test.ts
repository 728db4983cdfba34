import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, InsufficientAccessError, InvalidCredentialsError } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInjectPortal, type InjectPortal } from './support/inject-portal.js';
import { freePort, run } from './support/processes.js';
import { REPO_ROOT } from './support/repo.js';

// deploy/ldap as an operator uses it: setup.sh makes the directory, slapd runs its
// slapd.conf (ldaps:// with a certificate from the portal's own CA), the portal publishes with
// the account setup.sh made, TAK Server's account reads, and nobody else gets in.

const SUFFIX = 'dc=unit,dc=example';
const BASE = `ou=callsign-portal,${SUFFIX}`;
let dir: string;
let portal: InjectPortal;
let url: string;
let caPem: string;
let pid: number | undefined;

async function bound(dn: string | undefined, password = '') {
  const client = new Client({ url, tlsOptions: { ca: [caPem], servername: 'localhost' } });
  if (dn !== undefined) await client.bind(dn, password);
  return client;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'portal-deploy-ldap-'));
  const stateDir = path.join(dir, 'state');
  await mkdir(path.join(stateDir, 'tls'), { recursive: true });
  // The portal first: its CA issues the directory's server certificate (as `server-cert` does).
  const port = await freePort();
  url = `ldaps://localhost:${port}`;
  const passwordFile = path.join(dir, 'portal-password');
  await writeFile(passwordFile, 'not yet');
  portal = await openInjectPortal({
    env: {
      PORTAL_LDAP_URL: url,
      PORTAL_LDAP_BIND_DN: `cn=portal,${SUFFIX}`,
      PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
      PORTAL_LDAP_BASE_DN: BASE,
    },
  });
  const issued = await portal.portal.certificates.issueServerCertificate(['localhost']);
  caPem = portal.portal.ca.chainPem;
  await writeFile(
    path.join(stateDir, 'tls', 'cert.pem'),
    [issued.certificatePem, ...issued.chainPem].join(''),
  );
  await writeFile(path.join(stateDir, 'tls', 'key.pem'), issued.privateKeyPem, { mode: 0o600 });
  const setup = await run('bash', [
    path.join(REPO_ROOT, 'deploy', 'ldap', 'setup.sh'),
    stateDir,
    SUFFIX,
  ]);
  expect(setup.code, setup.stderr).toBe(0);
  const socket = encodeURIComponent(path.join(dir, 'ldapi'));
  const slapd = spawn(
    '/usr/sbin/slapd',
    ['-d', '0', '-f', path.join(stateDir, 'slapd.conf'), '-h', `${url}/ ldapi://${socket}/`],
    { stdio: 'ignore' },
  );
  pid = slapd.pid;
  for (let tries = 0; ; tries += 1) {
    try {
      const client = await bound(undefined);
      await client.unbind();
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 60_000);

afterAll(async () => {
  if (pid !== undefined) process.kill(pid);
  await portal.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('deploy/ldap', () => {
  it('serves the portal over ldaps with the account setup.sh made', async () => {
    const password = (await readFile(path.join(dir, 'state', 'portal-password'), 'utf8')).trim();
    // The portal reads its password file at start: a portal started after setup.sh.
    const passwordFile = path.join(dir, 'portal-password');
    await writeFile(passwordFile, password);
    const started = await openInjectPortal({
      env: {
        PORTAL_LDAP_URL: url,
        PORTAL_LDAP_BIND_DN: `cn=portal,${SUFFIX}`,
        PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
        PORTAL_LDAP_BASE_DN: BASE,
      },
    });
    try {
      await started.addMember('Deploy1');
      const status = await started.portal.directory?.syncNow();
      expect(status, JSON.stringify(status)).toMatchObject({ inSync: true });
      const tak = await bound(
        `cn=takserver,${SUFFIX}`,
        (await readFile(path.join(dir, 'state', 'takserver-password'), 'utf8')).trim(),
      );
      const { searchEntries } = await tak.search(`ou=users,${BASE}`, { scope: 'one' });
      expect(searchEntries.map((entry) => entry.cn)).toEqual(['Deploy1']);
      // TAK Server's account reads, and may not write.
      await expect(
        tak.add(`cn=Intruder,ou=users,${BASE}`, {
          objectClass: 'inetOrgPerson',
          cn: 'Intruder',
          sn: 'Intruder',
        }),
      ).rejects.toBeInstanceOf(InsufficientAccessError);
      await tak.unbind();
    } finally {
      await started.destroy();
    }
  });

  it('lets nobody in anonymously, and the portal write nothing outside its subtree', async () => {
    const anonymous = await bound(undefined);
    await expect(anonymous.search(SUFFIX, { scope: 'sub' })).rejects.toThrow();
    await anonymous.unbind();
    const password = (await readFile(path.join(dir, 'state', 'portal-password'), 'utf8')).trim();
    const client = await bound(`cn=portal,${SUFFIX}`, password);
    await expect(
      client.add(`ou=elsewhere,${SUFFIX}`, { objectClass: 'organizationalUnit', ou: 'elsewhere' }),
    ).rejects.toBeInstanceOf(InsufficientAccessError);
    await client.unbind();
    await expect(bound(`cn=portal,${SUFFIX}`, 'wrong')).rejects.toBeInstanceOf(
      InvalidCredentialsError,
    );
  });
});
