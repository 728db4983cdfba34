import { mkdir, readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CaAdoptionError, prepareAdoption, type Adoption } from '../ca/adopt.js';
import { readCaFiles, writeCaFiles } from '../ca/ca-files.js';
import type { Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { lockForTransaction } from '../db/transaction.js';
import { appendAuditEvent } from '../modules/audit/service.js';
import { countRecordedCertificates } from '../modules/certificates/service.js';
import { MEMBERSHIP_LOCK } from '../modules/people/membership.js';
import { countMembers } from '../modules/people/service.js';

/**
 * `ca adopt --cert FILE --key FILE [--chain FILE] [--passphrase-file FILE] [--issue-directly]`
 * (docs/tak.md): on a data directory without a CA or members, the given CA
 * becomes the portal's. Every check (ca/adopt.ts, then: no CA in the directory, no member and no
 * certificate in the database) runs before anything is written; the files are written and the
 * audit event committed in one transaction that holds the membership lock, so that no member is
 * added meanwhile.
 */
export async function adoptCa(config: Config, args: string[], now = new Date()): Promise<Adoption> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      cert: { type: 'string' },
      key: { type: 'string' },
      chain: { type: 'string' },
      'passphrase-file': { type: 'string' },
      'issue-directly': { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new CaAdoptionError('ca adopt takes only options');
  if (values.cert === undefined || values.key === undefined) {
    throw new CaAdoptionError('ca adopt needs --cert FILE and --key FILE');
  }
  const passphraseFile = values['passphrase-file'];
  const [certificatePem, keyPem, chainPem, passphrase] = await Promise.all([
    readInput(values.cert, '--cert'),
    readInput(values.key, '--key'),
    values.chain === undefined ? undefined : readInput(values.chain, '--chain'),
    passphraseFile === undefined
      ? undefined
      : readInput(passphraseFile, '--passphrase-file').then(firstLine),
  ]);
  if ((await readCaFiles(config.caDir)) !== undefined) {
    throw new CaAdoptionError(
      `${config.caDir} holds a CA already: ca adopt is for a data directory without one`,
    );
  }
  const adoption = await prepareAdoption({
    certificatePem,
    keyPem,
    chainPem,
    passphrase,
    issueDirectly: values['issue-directly'],
    storePassphrase: config.caPassphrase,
    organization: config.host,
    now,
  });
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: config.sqliteFile,
  });
  try {
    await migrateToLatest(database);
    await database.db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, MEMBERSHIP_LOCK);
      const members = await countMembers(trx);
      const certificates = await countRecordedCertificates(trx);
      if (members > 0 || certificates > 0) {
        throw new CaAdoptionError(
          `the portal has ${members} member(s) and ${certificates} certificate(s) already: ` +
            'a CA can be adopted only before the first member (their keys come from the CA there is)',
        );
      }
      await appendAuditEvent(trx, {
        at: now.getTime(),
        actor: 'cli',
        action: 'ca.adopt',
        target: adoption.adopted.subject,
        outcome: 'success',
        clientAddress: null,
        detail: { hierarchy: adoption.hierarchy, issuesDirectly: adoption.issuesDirectly },
      });
      // Last: files that cannot be written roll the event back.
      await writeCaFiles(config.caDir, adoption.material);
    });
  } finally {
    await database.close();
  }
  return adoption;
}

async function readInput(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CaAdoptionError(
      `${option}: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The passphrase is the file's first line, without its line ending (as `openssl -passin file:`). */
function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? '';
}
