import type { AuditAction } from '@callsign/contract';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_ALPHABET } from '@callsign/contract';
import type { Portal } from '../src/portal.js';
import { withPortalIn } from './support/data-dir-portal.js';
import { hashCode } from '../src/modules/auth/codes.js';
import { listAuditEvents } from '../src/modules/audit/repository.js';
import { isLoginCodeUsable } from '../src/modules/firstuser/login-code-repository.js';
import { findCertificateBySerial } from '../src/modules/certificates/repository.js';
import { findMemberByCallsign, insertMember } from '../src/modules/people/repository.js';
import { makeTakCa, TAK_CAPASS } from '../src/ca/tak-ca.testing.js';
import { run } from './support/processes.js';
import { REPO_ROOT, SERVER_DIST } from './support/repo.js';

// These run the built CLI as an operator would; `npm test` builds before testing.
const CLI = path.join(SERVER_DIST, 'cli.js');

let workDir: string;
let env: NodeJS.ProcessEnv;

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return run('node', [CLI, ...args], { cwd: workDir, env: { ...env, ...extraEnv } });
}

const withPortal = <T>(work: (portal: Portal) => Promise<T>): Promise<T> =>
  withPortalIn(workDir, work);

beforeAll(async () => {
  expect(existsSync(CLI), 'build the server first (npm run build)').toBe(true);
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-cli-'));
  env = { ...process.env, PORTAL_DATA_DIR: path.join(workDir, 'data'), PORTAL_LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const codePattern = new RegExp(`^[${CODE_ALPHABET}]{12}$`);

describe('admin-code', () => {
  it('prints only a new, usable code through npm run --silent portal', async () => {
    const result = await run('npm', ['run', '--silent', 'portal', '--', 'admin-code'], {
      cwd: REPO_ROOT,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^[A-Z0-9]{12}\n$/);
    const code = result.stdout.trim();
    expect(code).toMatch(codePattern);
    await withPortal(async (portal) => {
      expect(await isLoginCodeUsable(portal.database.db, hashCode(code), Date.now())).toBe(true);
    });
  });

  it('gives a different code each time', async () => {
    const first = await cli(['admin-code']);
    const second = await cli(['admin-code']);
    expect(first.stdout.trim()).not.toBe(second.stdout.trim());
  });
});

describe('server-cert', () => {
  it('writes a certificate from the portal CA and its private key', async () => {
    const out = path.join(workDir, 'out');
    await run('mkdir', ['-p', out]);
    const result = await cli([
      'server-cert',
      'tak.portal.localhost',
      'tak2.portal.localhost',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const certFile = path.join(out, 'tak.portal.localhost.crt.pem');
    const keyFile = path.join(out, 'tak.portal.localhost.key.pem');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const text = await run('openssl', ['x509', '-in', certFile, '-noout', '-text']);
    expect(text.stdout).toContain('DNS:tak.portal.localhost, DNS:tak2.portal.localhost');
    // Server and client authentication (a TAK Server federates with it), back-dated 12 hours,
    // 397 days in all.
    expect(text.stdout).toMatch(
      /Extended Key Usage: \s+TLS Web Server Authentication, TLS Web Client Authentication\n/,
    );
    const printed = (name: string) =>
      Date.parse(new RegExp(`${name}: (.+)\n`).exec(text.stdout)?.[1] ?? '');
    expect(Math.abs(printed('Not Before') - (Date.now() - 12 * 3_600_000))).toBeLessThan(60_000);
    expect(printed('Not After ') - printed('Not Before')).toBe(397 * 86_400_000);
    const verify = await run('openssl', [
      'verify',
      '-CAfile',
      path.join(workDir, 'data', 'ca', 'root-ca.pem'),
      '-untrusted',
      certFile,
      certFile,
    ]);
    expect(verify.stdout).toContain(': OK');
    const certKey = await run('openssl', ['x509', '-in', certFile, '-noout', '-pubkey']);
    const privKey = await run('openssl', ['pkey', '-in', keyFile, '-pubout']);
    expect(privKey.stdout).toBe(certKey.stdout);
    // The key issue is in the audit log, done by the command line.
    const serial = /serial ([0-9a-f]+)/.exec(result.stdout)?.[1];
    const events = await withPortal((portal) =>
      listAuditEvents(portal.database.db, { filter: { action: 'certificate.server' }, limit: 10 }),
    );
    expect(events.find((event) => event.target === 'tak.portal.localhost')).toMatchObject({
      actor: 'cli',
      outcome: 'success',
      clientAddress: null,
      detail: { serial, names: ['tak.portal.localhost', 'tak2.portal.localhost'] },
    });
  });

  it('makes the --out folder when it does not exist yet (docs/tak.md)', async () => {
    const out = path.join(workDir, 'new', 'tak');
    const result = await cli(['server-cert', 'tak.example.org', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect((await stat(path.join(out, 'tak.example.org.key.pem'))).mode & 0o777).toBe(0o600);
    expect(result.stdout).toContain(path.join(out, 'tak.example.org.crt.pem'));
  });

  it('needs at least one name', async () => {
    const result = await cli(['server-cert']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('server-cert needs at least one NAME');
  });

  it('refuses a name without a dot (a callsign, reserved or not) and writes nothing (docs/deployment.md)', async () => {
    await withPortal(async (portal) => {
      await insertMember(portal.database.db, {
        callsign: 'Falcon3',
        status: 'active',
        inviteCode: null,
        roles: [],
        at: Date.now(),
      });
    });
    const serverCertificates = () =>
      withPortal(
        async (portal) =>
          (
            await portal.database.db
              .selectFrom('issued_certificates')
              .select('serial')
              .where('purpose', '=', 'server')
              .execute()
          ).length,
      );
    const before = await serverCertificates();
    const out = path.join(workDir, 'refused-names');
    for (const names of [
      ['falcon3'],
      ['tak.example.org', 'Falcon3'],
      ['takserver'],
      ['tak..example.org'],
    ]) {
      const result = await cli(['server-cert', ...names, '--out', out]);
      expect(result.code, names.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/server-cert: ".+" is not a DNS name with a dot/);
    }
    expect(existsSync(out)).toBe(false);
    expect(await serverCertificates()).toBe(before);
  });
});

describe('revoke', () => {
  it('revokes a member and every certificate they hold', async () => {
    const serials = await withPortal(async (portal) => {
      await insertMember(portal.database.db, {
        callsign: 'Viper7',
        status: 'active',
        inviteCode: null,
        roles: [],
        at: Date.now(),
      });
      const issue = () =>
        portal.certificates.issueForMember({
          callsign: 'Viper7',
          purpose: 'browser',
          key: { generate: portal.certificates.memberKeyAlgorithm },
          actor: { callsign: 'test', clientAddress: null },
          // A test's own action, outside the portal's list (AUDIT_ACTION_GROUPS).
          audit: { action: 'test.issue-key' as AuditAction },
        });
      const a = await issue();
      const b = await issue();
      return [a.serial, b.serial];
    });
    const result = await cli(['revoke', 'viper7']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Revoked Viper7 and 2 certificate(s).\n');
    await withPortal(async (portal) => {
      expect((await findMemberByCallsign(portal.database.db, 'Viper7'))?.status).toBe('revoked');
      for (const serial of serials) {
        const certificate = await findCertificateBySerial(portal.database.db, serial);
        expect(certificate?.revokedAt).toEqual(expect.any(Number));
      }
    });
    const again = await cli(['revoke', 'Viper7']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no member Viper7 to revoke');
  });

  it('refuses something that is not a callsign', async () => {
    const result = await cli(['revoke', 'not a callsign']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a callsign');
  });
});

describe('backup', () => {
  it('writes the archive and records the backup in the audit log', async () => {
    const file = path.join(workDir, 'audited-backup.zip');
    const result = await cli(['backup', file]);
    expect(result.code, result.stderr).toBe(0);
    const [event] = await withPortal((portal) =>
      listAuditEvents(portal.database.db, { filter: { action: 'backup.create' }, limit: 1 }),
    );
    expect(event).toMatchObject({
      actor: 'cli',
      target: file,
      outcome: 'success',
      clientAddress: null,
    });
    expect(event?.detail).toMatchObject({ engine: 'sqlite' });
  });
});

describe('ca adopt', () => {
  it('refuses a key of another CA with exit status 1, says nothing was written, and writes nothing', async () => {
    const dataDir = path.join(workDir, 'adopt-data');
    const certs = path.join(workDir, 'adopt-certs');
    const [tak, other] = await Promise.all([
      makeTakCa(path.join(certs, 'tak'), { name: 'CliTakCA' }),
      makeTakCa(path.join(certs, 'other'), { name: 'CliOtherCA' }),
    ]);
    const passphrase = path.join(certs, 'capass');
    await writeFile(passphrase, `${TAK_CAPASS}\n`);
    const args = ['ca', 'adopt', '--cert', tak.caPem, '--passphrase-file', passphrase];
    const refused = await cli([...args, '--key', other.caKey], { PORTAL_DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^ca adopt: --key does not belong to the certificate .*CN=CliTakCA \(another key pair\); nothing written\n$/,
    );
    expect(existsSync(dataDir)).toBe(false);
    const adopted = await cli([...args, '--key', tak.caKey], { PORTAL_DATA_DIR: dataDir });
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toMatch(/^Adopted .*CN=CliTakCA \(valid until /);
  });
});

describe('ca adopt of an intermediate', () => {
  it('keeps the chain above it (ca-chain.pem) through a backup and a restore', async () => {
    const certs = path.join(workDir, 'adopt-intermediate');
    const tak = await makeTakCa(certs, { name: 'CliRootCA', intermediate: 'CliSubCA' });
    const passphrase = path.join(certs, 'capass');
    await writeFile(passphrase, `${TAK_CAPASS}\n`);
    const dataDir = path.join(workDir, 'adopt-intermediate-data');
    const adopted = await cli(
      ['ca', 'adopt', '--cert', tak.caPem, '--key', tak.caKey, '--passphrase-file', passphrase],
      { PORTAL_DATA_DIR: dataDir },
    );
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain("Members' keys are signed by the adopted CA itself");
    const chainFile = path.join(dataDir, 'ca', 'ca-chain.pem');
    expect(await readFile(chainFile, 'utf8')).toBe(await readFile(tak.rootPem, 'utf8'));

    // The first start (here: a command) adds the portal's JWT key beside the CA.
    const first = await cli(['server-cert', 'tak.portal.localhost', '--out', dataDir], {
      PORTAL_DATA_DIR: dataDir,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(path.join(dataDir, 'tak.portal.localhost.crt.pem'), 'utf8')).toContain(
      (await readFile(tak.caPem, 'utf8')).split('-----END CERTIFICATE-----')[0],
    );
    const archive = path.join(workDir, 'adopted-backup.zip');
    const backup = await cli(['backup', archive], { PORTAL_DATA_DIR: dataDir });
    expect(backup.code, backup.stderr).toBe(0);
    const restoredDir = path.join(workDir, 'adopt-restored-data');
    const restored = await cli(['restore', archive], { PORTAL_DATA_DIR: restoredDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(await readFile(path.join(restoredDir, 'ca', 'ca-chain.pem'), 'utf8')).toBe(
      await readFile(chainFile, 'utf8'),
    );
    // The restored CA opens: the chain leads from the intermediate to the root.
    const served = await cli(['server-cert', 'tak.portal.localhost', '--out', restoredDir], {
      PORTAL_DATA_DIR: restoredDir,
    });
    expect(served.code, served.stderr).toBe(0);
  });
});

describe('tak crl-bundle', () => {
  /** Another CA's CRL as TAK Server's own CA writes it (`openssl ca -gencrl`), PEM and DER. */
  async function otherCaCrl(dates: string[] = []) {
    const dir = await mkdtemp(path.join(workDir, 'other-ca-'));
    const at = (name: string) => path.join(dir, name);
    await run('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', at('ca.key'), '-out', at('ca.pem'), '-subj', '/CN=TAK Server CA', '-days', '30',
    ]); // prettier-ignore
    await writeFile(at('index.txt'), '');
    await writeFile(
      at('ca.cnf'),
      `[ca]\ndefault_ca=x\n[x]\ndatabase=${at('index.txt')}\ndefault_md=sha256\n` +
        'default_crl_days=30\n',
    );
    const made = await run('openssl', [
      'ca', '-config', at('ca.cnf'), '-gencrl', '-keyfile', at('ca.key'), '-cert', at('ca.pem'),
      '-out', at('ca.crl'), ...dates,
    ]); // prettier-ignore
    expect(made.code, made.stderr).toBe(0);
    await run('openssl', ['crl', '-in', at('ca.crl'), '-outform', 'DER', '-out', at('ca.der')]);
    return { pem: at('ca.crl'), der: at('ca.der'), cert: at('ca.pem') };
  }

  /** The issuer of each CRL in a PEM bundle, in order, as openssl reads them one by one. */
  async function issuersIn(file: string) {
    const blocks = (await readFile(file, 'utf8')).match(
      /-----BEGIN X509 CRL-----[\s\S]*?-----END X509 CRL-----\n/g,
    );
    const issuers: string[] = [];
    for (const block of blocks ?? []) {
      const result = await run('openssl', ['crl', '-noout', '-issuer'], { input: block });
      expect(result.code, result.stderr).toBe(0);
      issuers.push(result.stdout.trim());
    }
    return issuers;
  }

  it("writes the portal's CRL and each --also CRL (PEM or DER) into one PEM file", async () => {
    const other = await otherCaCrl();
    const out = path.join(workDir, 'bundle', 'crl-bundle.pem');
    await run('mkdir', ['-p', path.dirname(out)]);
    const result = await cli(['tak', 'crl-bundle', '--also', other.pem, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`CRL bundle of 2 CRL(s) written to ${out}`);
    expect(result.stdout).toContain('CN=TAK Server CA: 0 revoked');
    expect(await issuersIn(out)).toEqual([
      'issuer=O = portal.localhost, CN = Callsign Portal Issuing CA',
      'issuer=CN = TAK Server CA',
    ]);
    expect((await stat(out)).mode & 0o777).toBe(0o644);

    // DER, and the file given after a single --also; without --out, the bundle goes to stdout.
    const second = await otherCaCrl();
    const toStdout = await cli(['tak', 'crl-bundle', '--also', other.der, second.pem]);
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(toStdout.stderr).toContain('CRL bundle of 3 CRL(s)');
    const file = path.join(workDir, 'bundle', 'stdout.pem');
    await writeFile(file, toStdout.stdout);
    expect(await issuersIn(file)).toHaveLength(3);
  });

  it('refuses a file that is not a CRL or an expired CRL, and writes nothing', async () => {
    const other = await otherCaCrl();
    // Signed in 2020 and due again a week later.
    const expired = await otherCaCrl([
      '-crl_lastupdate', '20200101000000Z', '-crl_nextupdate', '20200108000000Z',
    ]); // prettier-ignore
    const out = path.join(workDir, 'bundle', 'refused.pem');
    const notCrl = await cli(['tak', 'crl-bundle', '--also', other.pem, other.cert, '--out', out]);
    expect(notCrl.code).toBe(1);
    expect(notCrl.stderr).toBe(
      `tak crl-bundle: ${other.cert}: not a CRL (the PEM holds CERTIFICATE); nothing written\n`,
    );
    const missing = await cli(['tak', 'crl-bundle', '--also', path.join(workDir, 'nope.crl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    expect(missing.stdout).toBe('');
    expect(existsSync(out)).toBe(false);

    const lapsed = await cli(['tak', 'crl-bundle', '--also', other.der, expired.pem, '--out', out]);
    expect(lapsed.stderr).toBe(
      `tak crl-bundle: ${expired.pem}: the CRL of CN=TAK Server CA expired at ` +
        '2020-01-08T00:00:00.000Z (past its nextUpdate); fetch or sign a fresh one; nothing written\n',
    );
    expect(lapsed.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it('explains a missing subcommand', async () => {
    const result = await cli(['tak']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tak takes a subcommand: crl-bundle');
  });
});

describe('migrate and errors', () => {
  it('reports an up-to-date database', async () => {
    const result = await cli(['migrate']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^(The database is up to date\.|Applied: .+)\n$/);
    expect((await cli(['migrate'])).stdout).toBe('The database is up to date.\n');
  });

  it('stops on a bad setting, naming the variable', async () => {
    const result = await cli(['admin-code'], { PORTAL_PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORTAL_PORT');
    expect(result.stdout).toBe('');
  });

  it('explains an unknown command', async () => {
    const result = await cli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
  });
});
