import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaAdoptionError } from '../ca/adopt.js';
import { certificatesIn } from '../ca/authority.js';
import { makeTempDir, removeTempDir, rsaCaCertificate } from '../ca/openssl-cli.testing.js';
import { makeTakCa, TAK_CAPASS, type TakCaFiles } from '../ca/tak-ca.testing.js';
import { seedTestCa } from '../ca/test-ca.testing.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { testEngines, type ScratchDatabase } from '../db/test-engines.testing.js';
import { listRecentAuditEvents } from '../modules/audit/recent-events.testing.js';
import { addMember } from '../modules/people/service.js';
import { openPortal } from '../portal.js';
import { adoptCa } from './ca-adopt.js';

// `ca adopt` on each engine: the data directory's checks (no CA, no member, no certificate),
// nothing written on a refusal, and the files and the audit event written together.

let dir: string;
let tak: TakCaFiles;
let passphraseFile: string;
/** A root CA on a 1024-bit RSA key, signed with SHA-1, made with OpenSSL. */
const weak = { cert: '', key: '' };

beforeAll(async () => {
  dir = await makeTempDir();
  tak = await makeTakCa(path.join(dir, 'certs'), { name: 'AdoptRootCA' });
  passphraseFile = path.join(dir, 'capass.txt');
  await writeFile(passphraseFile, `${TAK_CAPASS}\n`);
  const made = await rsaCaCertificate(dir, 'WeakRootCA', { bits: 1024, digest: 'sha1' });
  weak.cert = made.cert;
  weak.key = made.key;
}, 60_000);

afterAll(async () => {
  await removeTempDir(dir);
});

const adoptArgs = () => [
  '--cert',
  tak.caPem,
  '--key',
  tak.caKey,
  '--passphrase-file',
  passphraseFile,
];

describe.each(testEngines())('ca adopt on $name', (engine) => {
  let scratch: ScratchDatabase;
  let config: Config;

  beforeAll(async () => {
    scratch = await engine.createScratchDatabase();
  });
  afterAll(async () => {
    await scratch.drop();
  });

  /** A data directory of its own on the engine's scratch database. */
  function configIn(name: string): Config {
    return loadConfig({
      PORTAL_DATA_DIR: path.join(scratch.dataDir, name),
      DATABASE_URL: scratch.options.databaseUrl ?? '',
    });
  }

  const caFiles = async (config: Config) => readdir(config.caDir).catch(() => []);

  it('refuses a key that does not match, before opening the database: nothing written', async () => {
    config = configIn('mismatch');
    const other = await makeTakCa(path.join(dir, 'other'), { name: 'OtherRootCA' });
    const args = ['--cert', tak.caPem, '--key', other.caKey, '--passphrase-file', passphraseFile];
    await expect(adoptCa(config, args)).rejects.toThrow(CaAdoptionError);
    expect(await caFiles(config)).toEqual([]);
  });

  it('refuses a weak CA (a 1024-bit RSA key signed with SHA-1): nothing written', async () => {
    config = configIn('weak');
    await expect(adoptCa(config, ['--cert', weak.cert, '--key', weak.key])).rejects.toThrow(
      'the certificate (CN=WeakRootCA) has a 1024-bit RSA key: a CA key needs at least 2048 bits',
    );
    expect(await caFiles(config)).toEqual([]);
  });

  it('refuses while members are there: no CA file, no audit event', async () => {
    config = configIn('members');
    await mkdir(config.dataDir, { recursive: true });
    const handle = openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
    await migrateToLatest(handle);
    const { db } = handle;
    await addMember(db, {
      callsign: 'Heron5',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: Date.now(),
    });
    const before = await listRecentAuditEvents(db);
    await expect(adoptCa(config, adoptArgs())).rejects.toThrow(
      'the portal has 1 member(s) and 0 certificate(s) already: a CA can be adopted only before the first member',
    );
    expect(await caFiles(config)).toEqual([]);
    expect(await listRecentAuditEvents(db)).toEqual(before);
    await db.deleteFrom('members').execute();
    await handle.close();
  });

  it('refuses a data directory that holds a CA already, and leaves it as it was', async () => {
    config = configIn('has-ca');
    await seedTestCa(config.caDir, config.host);
    const before = await caFiles(config);
    expect(before.length).toBeGreaterThan(0);
    await expect(adoptCa(config, adoptArgs())).rejects.toThrow(
      `${config.caDir} holds a CA already: ca adopt is for a data directory without one`,
    );
    expect(await caFiles(config)).toEqual(before);
  });

  it('adopts the TAK root: the files, one audit event, and a portal that opens on them', async () => {
    config = configIn('adopted');
    const adoption = await adoptCa(config, adoptArgs());
    expect(adoption.issuesDirectly).toBe(false);
    expect((await caFiles(config)).sort()).toEqual([
      'issuing-ca-key.pem',
      'issuing-ca.pem',
      'root-ca-key.pem',
      'root-ca.pem',
    ]);
    const portal = await openPortal(config, { migrate: true });
    try {
      const [event] = await listRecentAuditEvents(portal.database.db, 1);
      expect(event).toMatchObject({
        actor: 'cli',
        action: 'ca.adopt',
        outcome: 'success',
        target: 'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=AdoptRootCA',
      });
      expect(certificatesIn(portal.certificates.chainPem).map((c) => c.subject)).toEqual([
        'O=TAK, CN=Callsign Portal Issuing CA',
        'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=AdoptRootCA',
      ]);
    } finally {
      await portal.close();
    }
  });
});
