import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeMember } from '../src/commands/revoke-member.js';
import { run } from './support/processes.js';
import { REPO_ROOT } from './support/repo.js';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

// The CRL as a TAK Server gets it (docs/api.md, docs/tak.md): valid for 14 days,
// and deploy/tak-server/refresh-crl.sh, which installs it for TAK Server and restarts TAK Server
// only when the revoked list changed or the installed copy nears its nextUpdate.

const DEPLOY = path.join(REPO_ROOT, 'deploy', 'tak-server');
const SCRIPT = path.join(DEPLOY, 'refresh-crl.sh');
const DAY_S = 24 * 60 * 60;

let portal: TestPortal;

beforeAll(async () => {
  portal = await startTestPortal();
});
afterAll(async () => {
  await portal.destroy();
});

/** lastUpdate and nextUpdate of a PEM CRL file, in seconds since the epoch, as OpenSSL reads them. */
async function crlDates(file: string) {
  const result = await run('openssl', ['crl', '-in', file, '-noout', '-lastupdate', '-nextupdate']);
  expect(result.code, result.stderr).toBe(0);
  const field = (name: string) => {
    const value = new RegExp(`^${name}=(.+)$`, 'm').exec(result.stdout)?.[1];
    expect(value, result.stdout).toBeDefined();
    return Date.parse(value!) / 1000;
  };
  return { lastUpdate: field('lastUpdate'), nextUpdate: field('nextUpdate') };
}

describe('/ca/crl.pem', () => {
  it('is valid for 14 days by default (openssl crl -lastupdate -nextupdate)', async () => {
    const response = await portal.curl('public', '/ca/crl.pem');
    expect(response.status).toBe(200);
    const file = path.join(portal.workDir, 'fourteen-days.pem');
    await writeFile(file, response.body);
    const { lastUpdate, nextUpdate } = await crlDates(file);
    expect(nextUpdate - lastUpdate).toBe(14 * DAY_S);
    expect(Math.abs(lastUpdate - Date.now() / 1000)).toBeLessThan(DAY_S);
  });
});

describe('deploy/tak-server/refresh-crl.sh', () => {
  let crlFile: string;
  let marker: string;
  let env: Record<string, string>;

  beforeAll(() => {
    crlFile = path.join(portal.workDir, 'tak', 'portal-crl.pem');
    marker = path.join(portal.workDir, 'reloads');
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CRL_URL: `${portal.origin('public')}/ca/crl.pem`,
      CA_FILE: portal.chainFile,
      CRL_FILE: crlFile,
      // A TAK Server whose streaming input reads only the CRL (no OCSP): a restart on each change.
      RESTART_ON_CHANGE: 'yes',
      // Stands in for "systemctl restart takserver": counts the reloads.
      RELOAD_COMMAND: `echo reload >> '${marker}'`,
    };
  });

  const refresh = (extra: Record<string, string> = {}) =>
    run('bash', [SCRIPT], { env: { ...env, ...extra } });
  const reloads = async () =>
    existsSync(marker) ? (await readFile(marker, 'utf8')).split('\n').filter(Boolean).length : 0;

  it('installs the first CRL and reloads, then leaves an unchanged list alone', async () => {
    await run('mkdir', ['-p', path.dirname(crlFile)]);
    const first = await refresh();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('installed');
    expect(first.stdout).toContain('none installed yet');
    expect(await reloads()).toBe(1);
    expect((await stat(crlFile)).mode & 0o777).toBe(0o644);
    const installed = await crlDates(crlFile);
    expect(installed.nextUpdate - installed.lastUpdate).toBe(14 * DAY_S);

    const again = await refresh();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('unchanged (0 revoked');
    expect(await reloads()).toBe(1);
  });

  it('installs and reloads when a member is revoked, once', async () => {
    const key = await portal.addMember('Moth6');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Moth6',
      actor: 'test',
      clientAddress: null,
    });
    const changed = await refresh();
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('the revoked list changed (0 -> 1 entries)');
    expect(await reloads()).toBe(2);
    const listed = await run('openssl', ['crl', '-in', crlFile, '-noout', '-text']);
    expect(listed.stdout.toUpperCase()).toContain(key.serial.toUpperCase());

    expect((await refresh()).stdout).toContain('unchanged (1 revoked');
    expect(await reloads()).toBe(2);
  });

  it('replaces an installed copy that nears its nextUpdate (weekly with RENEW_DAYS=7)', async () => {
    // 14 days is less than "15 days left": as if the installed copy were a week old.
    const renewed = await refresh({ RENEW_DAYS: '15' });
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout).toContain('the installed copy expires');
    expect(await reloads()).toBe(3);
  });

  it('installs nothing and reloads nothing when the fetch or the CRL is bad', async () => {
    const before = await readFile(crlFile, 'utf8');
    const otherCa = path.join(portal.workDir, 'other-ca.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path.join(portal.workDir, 'other-ca.key'),
      '-out',
      otherCa,
      '-subj',
      '/CN=Other CA',
    ]);
    const copy = path.join(portal.workDir, 'crl-copy.pem');
    await writeFile(copy, (await portal.curl('public', '/ca/crl.pem')).body);
    const cases: Record<string, string>[] = [
      // Nothing listening there.
      { CRL_URL: 'https://127.0.0.1:9/ca/crl.pem' },
      // Not a CRL: the CA chain.
      { CRL_URL: `${portal.origin('public')}/ca/ca.pem` },
      // The portal's CRL, but the CA given is another one.
      { CRL_URL: `file://${copy}`, CA_FILE: otherCa },
    ];
    for (const extra of cases) {
      const result = await refresh(extra);
      expect(result.code, `${JSON.stringify(extra)}: ${result.stdout}${result.stderr}`).toBe(1);
      expect(result.stderr).toContain('left as it was');
    }
    expect(await readFile(crlFile, 'utf8')).toBe(before);
    expect(await reloads()).toBe(3);

    const missing = await refresh({ CRL_URL: '' });
    expect(missing.code).toBe(64);
  });

  it('says so and exits 2 when the reload command fails', async () => {
    await writeFile(crlFile, 'not a CRL\n');
    const result = await refresh({ RELOAD_COMMAND: 'exit 3' });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('the installed copy is not a readable CRL');
    expect(result.stderr).toContain('failed: TAK Server still uses its old copy');
  });
});

/** Another CA's CRL as TAK Server's makeRootCa.sh / revokeCert.sh write it (`openssl ca -gencrl`). */
async function otherCaCrl(dir: string, name: string, dates: string[] = []) {
  const at = (file: string) => path.join(dir, `${name.replaceAll(' ', '-')}-${file}`);
  const made = await run('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', at('ca.key'), '-out', at('ca.pem'), '-subj', `/CN=${name}`, '-days', '30',
  ]); // prettier-ignore
  expect(made.code, made.stderr).toBe(0);
  await writeFile(at('index.txt'), '');
  await writeFile(
    at('ca.cnf'),
    `[ca]\ndefault_ca=x\n[x]\ndatabase=${at('index.txt')}\ndefault_md=sha256\ndefault_crl_days=730\n`,
  );
  const gencrl = async () => {
    const result = await run('openssl', [
      'ca', '-config', at('ca.cnf'), '-gencrl', '-keyfile', at('ca.key'), '-cert', at('ca.pem'),
      '-out', at('ca.crl'), ...dates,
    ]); // prettier-ignore
    expect(result.code, result.stderr).toBe(0);
  };
  await gencrl();
  return {
    crl: at('ca.crl'),
    cert: at('ca.pem'),
    /** Revokes a certificate of this CA (its own, for want of another) and writes the CRL again. */
    async revokeOne() {
      const result = await run('openssl', [
        'ca', '-config', at('ca.cnf'), '-revoke', at('ca.pem'), '-keyfile', at('ca.key'),
        '-cert', at('ca.pem'),
      ]); // prettier-ignore
      expect(result.code, result.stderr).toBe(0);
      await gencrl();
    },
  };
}

/** The issuer of each CRL of a PEM bundle, in order. */
async function issuersIn(file: string) {
  const blocks = (await readFile(file, 'utf8')).match(
    /-----BEGIN X509 CRL-----[\s\S]*?-----END X509 CRL-----\n/g,
  );
  const issuers: string[] = [];
  for (const block of blocks ?? []) {
    const result = await run('openssl', ['crl', '-noout', '-issuer'], { input: block });
    expect(result.code, result.stderr).toBe(0);
    issuers.push(result.stdout.trim().replace(/^issuer=/, ''));
  }
  return issuers;
}

describe('refresh-crl.sh with other CAs (ALSO_CRLS) and OCSP (RESTART_ON_CHANGE=no, the default)', () => {
  let dir: string;
  let bundleFile: string;
  let marker: string;
  let env: Record<string, string>;
  let takCa: Awaited<ReturnType<typeof otherCaCrl>>;
  let fedCa: Awaited<ReturnType<typeof otherCaCrl>>;

  beforeAll(async () => {
    dir = path.join(portal.workDir, 'bundle');
    await run('mkdir', ['-p', dir]);
    takCa = await otherCaCrl(dir, 'TAK Server CA');
    fedCa = await otherCaCrl(dir, 'Federation CA');
    const fedDer = path.join(dir, 'fed.der');
    await run('openssl', ['crl', '-in', fedCa.crl, '-outform', 'DER', '-out', fedDer]);
    bundleFile = path.join(dir, 'crl-bundle.pem');
    marker = path.join(dir, 'reloads');
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CRL_URL: `${portal.origin('public')}/ca/crl.pem`,
      CA_FILE: portal.chainFile,
      CRL_FILE: bundleFile,
      ALSO_CRLS: `${takCa.crl} ${fedDer}`,
      RELOAD_COMMAND: `echo reload >> '${marker}'`,
    };
  });

  const refresh = (extra: Record<string, string> = {}) =>
    run('bash', [SCRIPT], { env: { ...env, ...extra } });
  const reloads = async () =>
    existsSync(marker) ? (await readFile(marker, 'utf8')).split('\n').filter(Boolean).length : 0;

  it("installs one PEM bundle: the portal's CRL first, then each other CA's (PEM or DER)", async () => {
    const first = await refresh();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('none installed yet');
    expect(await reloads()).toBe(1);
    expect(await issuersIn(bundleFile)).toEqual([
      'O = portal.localhost, CN = Callsign Portal Issuing CA',
      'CN = TAK Server CA',
      'CN = Federation CA',
    ]);
    // What TAK Server loaded, kept to know when it lapses.
    expect(await readFile(`${bundleFile}.loaded`, 'utf8')).toBe(await readFile(bundleFile, 'utf8'));
    expect((await refresh()).stdout).toMatch(/unchanged \(\d+ revoked; installed copy valid until/);
    expect(await reloads()).toBe(1);
  });

  it('installs a changed revoked list without restarting TAK Server, and says why', async () => {
    const key = await portal.addMember('Heron3');
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Heron3',
      actor: 'test',
      clientAddress: null,
    });
    const changed = await refresh();
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('the revoked list changed');
    expect(changed.stdout).toContain('no restart (RESTART_ON_CHANGE=no)');
    expect(await reloads()).toBe(1);
    const listed = await run('openssl', ['crl', '-in', bundleFile, '-noout', '-text']);
    expect(listed.stdout.toUpperCase()).toContain(key.serial.toUpperCase());

    // Another CA's revocation is a change as well.
    await takCa.revokeOne();
    const other = await refresh();
    expect(other.stdout).toMatch(/the revoked list changed \((\d+) -> \d+ entries\)/);
    expect(other.stdout).toContain('no restart');
    expect(await reloads()).toBe(1);
    expect((await refresh()).stdout).toContain('unchanged');

    // RESTART_ON_CHANGE=yes restarts on the next change.
    await fedCa.revokeOne();
    await run('openssl', [
      'crl',
      '-in',
      fedCa.crl,
      '-outform',
      'DER',
      '-out',
      path.join(dir, 'fed.der'),
    ]);
    const restarted = await refresh({ RESTART_ON_CHANGE: 'yes' });
    expect(restarted.stdout).toContain('the revoked list changed');
    expect(restarted.stdout).toContain('ran: echo reload');
    expect(await reloads()).toBe(2);
  });

  it("is read by Java whole as Tomcat reads it, and only the first CRL as TAK Server's streaming input reads a file", async (context) => {
    const java = await run('sh', ['-c', 'command -v java']);
    if (java.code !== 0) context.skip('java is not installed');
    const result = await run(
      'java',
      [path.join(import.meta.dirname, 'jvm', 'CrlFileReads.java'), bundleFile],
      {
        timeout: 120_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    // Hence docs/tak.md: the bundle as the first <crl>, then each other CA's file again.
    expect(result.stdout).toBe(
      'generateCRL: CN=Callsign Portal Issuing CA, O=portal.localhost\n' +
        'generateCRLs: CN=Callsign Portal Issuing CA, O=portal.localhost; CN=TAK Server CA; CN=Federation CA\n',
    );
  });

  it('restarts TAK Server when the copy it loaded nears its nextUpdate, though the installed one is current', async () => {
    // Installed without a restart: TAK Server still holds the copy loaded by its last restart.
    const old = await otherCaCrl(dir, 'Old CA', [
      '-crl_lastupdate', '20200101000000Z', '-crl_nextupdate', '20200108000000Z',
    ]); // prettier-ignore
    await writeFile(`${bundleFile}.loaded`, await readFile(old.crl));
    const result = await refresh();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('the copy TAK Server loaded expires 2020-01-08 00:00 UTC');
    expect(await reloads()).toBe(3);
    expect((await refresh()).stdout).toContain('unchanged');
    expect(await reloads()).toBe(3);
  });

  it('installs nothing when an ALSO_CRLS file is missing, not a CRL, or past its nextUpdate', async () => {
    const before = await readFile(bundleFile, 'utf8');
    const expired = await otherCaCrl(dir, 'Lapsed CA', [
      '-crl_lastupdate', '20200101000000Z', '-crl_nextupdate', '20200108000000Z',
    ]); // prettier-ignore
    const cases: [string, string][] = [
      [path.join(dir, 'missing.crl'), 'cannot read'],
      [takCa.cert, 'is not a CRL (PEM or DER)'],
      [
        expired.crl,
        'is past its nextUpdate (2020-01-08 00:00 UTC): every client of its CA would be refused',
      ],
    ];
    for (const [file, message] of cases) {
      const result = await refresh({ ALSO_CRLS: `${takCa.crl} ${file}`, RENEW_DAYS: '1000' });
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('left as it was');
    }
    expect(await readFile(bundleFile, 'utf8')).toBe(before);
    expect(await reloads()).toBe(3);
    expect((await refresh({ RESTART_ON_CHANGE: 'maybe' })).code).toBe(64);
  });
});

describe('deploy/tak-server systemd units', () => {
  it('pass systemd-analyze verify', async (context) => {
    const which = await run('sh', ['-c', 'command -v systemd-analyze']);
    if (which.code !== 0) context.skip('systemd-analyze is not installed');
    // The units as shipped, with the script where the install steps would have put it.
    const dir = path.join(portal.workDir, 'units');
    await run('mkdir', ['-p', dir]);
    for (const unit of ['tak-crl-refresh.service', 'tak-crl-refresh.timer']) {
      const text = await readFile(path.join(DEPLOY, unit), 'utf8');
      await writeFile(
        path.join(dir, unit),
        text.replaceAll('/usr/local/sbin/tak-refresh-crl', SCRIPT),
      );
    }
    const result = await run(
      'systemd-analyze',
      ['verify', 'tak-crl-refresh.timer', 'tak-crl-refresh.service'],
      {
        cwd: dir,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
  });
});
