#!/usr/bin/env node
// @peculiar/x509 needs decorator metadata before anything imports it.
import 'reflect-metadata';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { callsignSchema } from '@callsign/contract';
import { BackupError, createBackup, restoreBackup } from './cli/backup.js';
import { adoptCa } from './cli/ca-adopt.js';
import { refusedServerCertName } from './cli/server-cert-names.js';
import { caRollover, RolloverRefusedError, RolloverUsageError } from './cli/ca-rollover.js';
import { CaAdoptionError } from './ca/adopt.js';
import { buildCrlBundle, CrlBundleError } from './ca/crl-bundle.js';
import { ConfigError, loadConfigFromProcess, type Config } from './config.js';
import { openPortal, type Portal } from './portal.js';
import { migrateToLatest } from './db/migrate.js';
import { ForbiddenError, HttpError } from './errors.js';
import { createAdminCode } from './modules/firstuser/admin-code.js';
import { revokeMember } from './commands/revoke-member.js';
import { NO_DIRECTORY, thenPublish } from './directory/changes.js';
import type { Difference } from './directory/ldap-directory.js';
import { userAuthenticationFile } from './tak/user-authentication-file.js';
import { runTakCheck, type CheckLine } from './cli/tak-check/run.js';
import { readVersion } from './version.js';

/**
 * The portal's command line, run from the repository as `npm run --silent portal -- COMMAND`,
 * with the same environment variables as the service (docs/deployment.md).
 */

const USAGE = `Usage: npm run --silent portal -- COMMAND [ARGS]

Commands:
  admin-code               Print a new single-use admin code (only the code, on stdout).
  server-cert NAME...      Issue a TLS server certificate from the portal's CA for the DNS
                           names given (each with a dot: never a callsign); writes NAME.crt.pem
                           (with the CA chain) and NAME.key.pem. Option: --out DIR (default:
                           the current directory).
  revoke CALLSIGN          Revoke a member and every certificate they hold.
  tak-packages CALLSIGN    Write the member's three TAK settings packages (ATAK/WinTAK, iTAK,
                           TAK Tracker) with one new certificate, as the portal gives them.
                           Option: --out DIR (default: the current directory).
  tak-check                Check the TAK Server the packages point at: its certificate, the
                           chain to the packages' truststore, and its verdict on a fresh and on
                           a member certificate (a throw-away test member TakCheck...), the
                           same certificate revoked a moment later (refused at once only with
                           enableOCSP), and one revoked in an earlier run. One line per check;
                           exit status = failures.
                           Options: --host NAME --port N (default TAK_HOST, TAK_PORT),
                           --address IP (connect there instead of resolving NAME),
                           --timeout SECONDS (default 10), --existing-client PFX[:PASSWORD]
                           (a key of a CA the server trusted before: still accepted?).
  ldap sync [--dry-run]    Bring the LDAP directory (PORTAL_LDAP_*) to the database's truth
                           now and print what changed; with --dry-run print what would
                           change (add, modify, delete, one entry a line) and write nothing.
  tak user-file            Write TAK Server's UserAuthenticationFile.xml: every active member by
                           callsign and the fingerprint of their newest key, with their groups
                           (groupList, groupListIN, groupListOUT). Option: --out FILE (written
                           beside and renamed into place; default: stdout).
  tak crl-bundle           Write one PEM file holding the portal's CRL and the CRL of every
                           other CA the TAK Server trusts, for TAK Server's <crl> (docs/tak.md).
                           Options: --also FILE... (another CA's CRL, PEM or DER; each must be
                           a CRL not past its nextUpdate), --out FILE (default: stdout).
  ca adopt                 Make an existing CA (TAK Server's ca.pem and ca-do-not-share.key)
                           the portal's, on a data directory without a CA or members
                           (docs/tak.md). Options: --cert FILE --key FILE, --chain FILE (its
                           issuers up to the root), --passphrase-file FILE (of the key),
                           --issue-directly (a root signs members itself instead of an issuing
                           CA the portal makes under it).
  ca rollover begin        Make the next issuing CA under the same root: new keys come from it,
                           both are trusted until finish (docs/operations.md). Option:
                           --renew-by YYYY-MM-DD (the members' banner; default 30 days).
  ca rollover finish       Retire the old issuing CA once no live key depends on it (those
                           renewed are revoked as superseded). Option: --force (revoke the
                           rest too).
  ca rollover status       Where the rollover stands and what to do next.
  migrate                  Run the database migrations.
  backup FILE              Write the database and the CA material (keys included) into one
                           archive, consistent while the service runs.
  restore FILE             Put a backup back into an empty database and CA directory (stop
                           the service first). Option: --force replaces what is there.
  help                     Show this text.

Settings come from the same PORTAL_* variables (or .env) as the service.`;

class UsageError extends Error {}

/** Who acts in the audit log for a command: the command line, from no network address. */
const CLI_ACTOR = { callsign: 'cli', clientAddress: null };

/** NAMES... [--out DIR], for the commands that write files (default: the current directory). */
function parseOutArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: 'string', default: '.' } },
  });
}

/** A command's exit status, when it is not simply 0. */
type Command = (portal: Portal, args: string[]) => Promise<number | undefined>;

function formatCheck(line: CheckLine): string {
  return `${line.status.padEnd(4)} ${line.name}: ${line.detail}\n`;
}

function parseTakCheckArgs(args: string[], config: Config) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      host: { type: 'string', default: config.takHost },
      port: { type: 'string', default: String(config.takPort) },
      address: { type: 'string' },
      timeout: { type: 'string', default: '10' },
      'existing-client': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('tak-check takes only options');
  const host = values.host.trim().toLowerCase();
  if (!/^[a-z0-9.:-]+$/.test(host)) throw new UsageError(`"${values.host}" is not a host name`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`--port must be between 1 and 65535, not "${values.port}"`);
  }
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 300) {
    throw new UsageError(
      `--timeout must be a number of seconds up to 300, not "${values.timeout}"`,
    );
  }
  if (values.address !== undefined && isIP(values.address) === 0) {
    throw new UsageError(`--address must be an IP address, not "${values.address}"`);
  }
  return {
    host,
    port,
    address: values.address,
    timeoutMs: timeout * 1000,
    existingClient: values['existing-client'],
  };
}

/** `PFX[:PASSWORD]`, read: the password may hold colons, the file name not. */
async function readExistingClient(value: string | undefined) {
  if (value === undefined) return undefined;
  const cut = value.indexOf(':');
  const file = cut === -1 ? value : value.slice(0, cut);
  const passphrase = cut === -1 ? '' : value.slice(cut + 1);
  try {
    return { file, pfx: await readFile(file), passphrase };
  } catch (error) {
    throw new UsageError(`--existing-client: cannot read ${file}: ${String(error)}`);
  }
}

/** Writes `text` to `out` through a file beside it and a rename: a reader never sees half. */
async function replaceFile(out: string, text: string): Promise<void> {
  const staged = `${out}.new.${process.pid}`;
  try {
    await writeFile(staged, text, { mode: 0o644 });
    await rename(staged, out);
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }
}

/** `tak crl-bundle [--also FILE...] [--out FILE]`: every positional is one more CRL file. */
async function writeCrlBundle(portal: Portal, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { also: { type: 'string', multiple: true, default: [] }, out: { type: 'string' } },
  });
  const files = [...values.also, ...positionals];
  const also = await Promise.all(
    files.map(async (file) => ({
      name: file,
      bytes: await readFile(file).catch((error: unknown) => {
        throw new UsageError(
          `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }),
    })),
  );
  // The CRL as /ca/crl.pem serves it: the issuing CA's, the only one the portal publishes.
  const crl = await portal.certificates.currentCrl();
  const bundle = buildCrlBundle({
    portal: [{ name: '/ca/crl.pem', bytes: crl.der }],
    also,
    now: portal.now(),
  });
  const summary = bundle.crls
    .map(
      (entry) =>
        `  ${entry.issuer}: ${entry.revoked} revoked, valid until ` +
        `${entry.nextUpdate?.toISOString() ?? '(no nextUpdate)'} (${entry.source})\n`,
    )
    .join('');
  if (values.out === undefined) {
    process.stdout.write(bundle.pem);
    process.stderr.write(`CRL bundle of ${bundle.crls.length} CRL(s):\n${summary}`);
    return;
  }
  // Same folder, then rename: a TAK Server starting meanwhile never reads half a file.
  const out = path.resolve(values.out);
  await replaceFile(out, bundle.pem);
  process.stdout.write(`CRL bundle of ${bundle.crls.length} CRL(s) written to ${out}:\n${summary}`);
}

/** `tak user-file [--out FILE]`: TAK Server's UserAuthenticationFile.xml (docs/tak.md). */
async function writeUserFile(portal: Portal, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError('tak user-file takes no arguments');
  const users = await portal.services.groups.userFile();
  const xml = userAuthenticationFile(users);
  const withKey = users.filter((user) => user.fingerprint !== undefined).length;
  const summary = `UserAuthenticationFile.xml: ${users.length} member(s), ${withKey} with a key fingerprint\n`;
  if (values.out === undefined) {
    process.stdout.write(xml);
    process.stderr.write(summary);
    return;
  }
  const out = path.resolve(values.out);
  await replaceFile(out, xml);
  process.stdout.write(`${summary.trimEnd()}, written to ${out}\n`);
}

/** One line per entry a sync adds, changes or deletes. */
function describeDifference(diff: Difference): string {
  return [
    ...diff.add.map((entry) => `add    ${entry.dn}\n`),
    ...diff.modify.map(({ dn, replace }) => `modify ${dn} (${Object.keys(replace).join(', ')})\n`),
    ...diff.delete.map((dn) => `delete ${dn}\n`),
  ].join('');
}

/** Commands that work on the database and the data directory as files, without opening the CA. */
const dataCommands: Record<string, (config: Config, args: string[]) => Promise<void>> = {
  async ca(config, args) {
    const [sub, ...rest] = args;
    if (sub === 'rollover') {
      const portal = await openPortal(config, { migrate: true });
      try {
        process.stdout.write(await caRollover(portal, rest));
      } finally {
        await portal.close();
      }
      return;
    }
    if (sub !== 'adopt') throw new UsageError('ca takes a subcommand: adopt or rollover');
    const adoption = await adoptCa(config, rest);
    process.stdout.write(
      `Adopted ${adoption.adopted.subject} (valid until ${adoption.adopted.notAfter.toISOString()}) ` +
        `into ${config.caDir}.\nMembers' keys are signed by ` +
        `${adoption.issuesDirectly ? 'the adopted CA itself' : 'a new issuing CA under it'}; ` +
        `the chain, issuing CA first:\n${adoption.hierarchy.map((s) => `  ${s}\n`).join('')}`,
    );
  },
  async backup(config, args) {
    if (args.length !== 1 || args[0] === undefined) {
      throw new UsageError('backup takes exactly one FILE');
    }
    const manifest = await createBackup(config, args[0]);
    const rows = Object.values(manifest.tables).reduce((sum, count) => sum + count, 0);
    process.stdout.write(
      `Backup of ${rows} rows (${manifest.engine}) and the CA written to ${path.resolve(args[0])}\n`,
    );
  },
  async restore(config, args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { force: { type: 'boolean', default: false } },
    });
    if (positionals.length !== 1 || positionals[0] === undefined) {
      throw new UsageError('restore takes exactly one FILE');
    }
    const manifest = await restoreBackup(config, positionals[0], { force: values.force });
    process.stdout.write(
      `Restored the backup of ${manifest.createdAt} (${manifest.engine}) into ${
        config.databaseUrl === undefined ? config.sqliteFile : 'PostgreSQL'
      } and ${config.caDir}\n`,
    );
  },
};

const commands: Record<string, { migrate: boolean; run: Command }> = {
  'admin-code': {
    migrate: true,
    async run(portal, args) {
      if (args.length > 0) throw new UsageError('admin-code takes no arguments');
      const { code } = await createAdminCode(portal.database.db, {
        ttlMs: portal.config.adminCodeTtlMs,
        actor: 'cli',
      });
      process.stdout.write(`${code}\n`);
    },
  },
  'server-cert': {
    migrate: true,
    async run(portal, args) {
      const { values, positionals } = parseOutArgs(args);
      if (positionals.length === 0) throw new UsageError('server-cert needs at least one NAME');
      const refused = refusedServerCertName(positionals);
      if (refused !== undefined) {
        throw new UsageError(
          `server-cert: "${refused}" is not a DNS name with a dot (a name without one could be a member's callsign); nothing written`,
        );
      }
      // Before issuing: a folder that cannot be made leaves no recorded certificate without a key.
      await mkdir(path.resolve(values.out), { recursive: true });
      const issued = await portal.certificates.issueServerCertificate(positionals, CLI_ACTOR);
      const base = path.resolve(values.out, positionals[0] ?? 'server');
      const certFile = `${base}.crt.pem`;
      const keyFile = `${base}.key.pem`;
      await writeFile(certFile, [issued.certificatePem, ...issued.chainPem].join(''), {
        mode: 0o644,
      });
      await writeFile(keyFile, issued.privateKeyPem, { mode: 0o600 });
      process.stdout.write(
        `Certificate for ${positionals.join(', ')} (serial ${issued.serial}, valid until ` +
          `${issued.notAfter.toISOString()}):\n  ${certFile}\n  ${keyFile}\n`,
      );
    },
  },
  revoke: {
    migrate: true,
    async run(portal, args) {
      if (args.length !== 1) throw new UsageError('revoke takes exactly one CALLSIGN');
      const callsign = callsignSchema.safeParse(args[0]);
      if (!callsign.success) throw new UsageError(`"${args[0] ?? ''}" is not a callsign`);
      // With a directory, the member leaves it now (closing the portal waits for the sync).
      const result = await thenPublish(
        portal.directory ?? NO_DIRECTORY,
        revokeMember(portal.database.db, portal.certificates, {
          callsign: callsign.data,
          actor: 'cli',
          clientAddress: null,
        }),
      );
      if (result === undefined) {
        throw new UsageError(`no member ${callsign.data} to revoke (unknown or revoked already)`);
      }
      process.stdout.write(
        `Revoked ${result.callsign} and ${result.serials.length} certificate(s).\n`,
      );
    },
  },
  'tak-packages': {
    migrate: true,
    async run(portal, args) {
      const { values, positionals } = parseOutArgs(args);
      if (positionals.length !== 1) throw new UsageError('tak-packages takes exactly one CALLSIGN');
      const callsign = callsignSchema.safeParse(positionals[0]);
      if (!callsign.success) throw new UsageError(`"${positionals[0] ?? ''}" is not a callsign`);
      const built = await portal.services.takPackages
        .build(callsign.data, { callsign: 'cli', clientAddress: null })
        .catch((error: unknown) => {
          if (error instanceof ForbiddenError) {
            throw new UsageError(`no active member ${callsign.data} (unknown, pending or revoked)`);
          }
          throw error;
        });
      const out = path.resolve(values.out);
      await mkdir(out, { recursive: true });
      const files: string[] = [];
      for (const item of built.packages) {
        const file = path.join(out, item.filename);
        // Each zip holds the member's private key: readable by the owner only.
        await writeFile(file, item.zip, { mode: 0o600 });
        files.push(file);
      }
      process.stdout.write(
        `TAK packages for ${built.callsign} (certificate serial ${built.serial}):\n` +
          files.map((file) => `  ${file}\n`).join(''),
      );
    },
  },
  'tak-check': {
    migrate: true,
    async run(portal, args) {
      const { existingClient, ...target } = parseTakCheckArgs(args, portal.config);
      const options = { ...target, existingClient: await readExistingClient(existingClient) };
      process.stdout.write(`tak-check ${options.host}:${options.port}\n`);
      let checks = 0;
      const failures = await runTakCheck(portal, options, (line) => {
        checks += 1;
        process.stdout.write(formatCheck(line));
      });
      process.stdout.write(`tak-check: ${failures} of ${checks} checks failed\n`);
      return failures;
    },
  },
  tak: {
    migrate: true,
    async run(portal, args) {
      const [sub, ...rest] = args;
      if (sub === 'user-file') {
        await writeUserFile(portal, rest);
        return;
      }
      if (sub !== 'crl-bundle') {
        throw new UsageError('tak takes a subcommand: crl-bundle or user-file');
      }
      await writeCrlBundle(portal, rest);
    },
  },
  ldap: {
    migrate: true,
    async run(portal, args) {
      const [sub, ...rest] = args;
      if (sub !== 'sync') throw new UsageError('ldap takes a subcommand: sync');
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { 'dry-run': { type: 'boolean', default: false } },
      });
      if (positionals.length > 0) throw new UsageError('ldap sync takes no arguments');
      const { directory } = portal;
      if (directory === undefined) {
        throw new UsageError(
          'no directory configured: set PORTAL_LDAP_URL, PORTAL_LDAP_BIND_DN, PORTAL_LDAP_BIND_PASSWORD_FILE and PORTAL_LDAP_BASE_DN (docs/directory.md)',
        );
      }
      const target = `${portal.config.ldap?.url ?? ''} ${portal.config.ldap?.baseDn ?? ''}`;
      if (values['dry-run']) {
        const diff = await directory.dryRun();
        process.stdout.write(describeDifference(diff));
        process.stdout.write(
          `ldap sync --dry-run (${target}): ${diff.add.length} to add, ${diff.modify.length} to modify, ${diff.delete.length} to delete; nothing written\n`,
        );
        return 0;
      }
      const status = await directory.syncNow();
      if (!status.inSync) {
        process.stderr.write(`ldap sync (${target}) failed: ${status.lastError ?? 'unknown'}\n`);
        return 1;
      }
      const changes = status.lastChanges ?? { added: 0, modified: 0, deleted: 0 };
      process.stdout.write(
        `ldap sync (${target}): ${changes.added} added, ${changes.modified} modified, ${changes.deleted} deleted\n`,
      );
      return 0;
    },
  },
  migrate: {
    migrate: false,
    async run(portal) {
      const applied = await migrateToLatest(portal.database);
      process.stdout.write(
        applied.length === 0 ? 'The database is up to date.\n' : `Applied: ${applied.join(', ')}\n`,
      );
    },
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const dataCommand = dataCommands[name];
  const command = commands[name];
  if (command === undefined && dataCommand === undefined) {
    process.stderr.write(`Unknown command "${name}".\n\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfigFromProcess(readVersion());
  if (dataCommand !== undefined) {
    await dataCommand(config, args);
    return 0;
  }
  if (command === undefined) return 2;
  const portal = await openPortal(config, { migrate: command.migrate });
  try {
    return (await command.run(portal, args)) ?? 0;
  } finally {
    await portal.close();
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    if (error instanceof BackupError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    // A refusal of the portal's rules, such as the hourly limit of new keys (429).
    if (error instanceof HttpError) {
      const retry = error.headers['retry-after'];
      process.stderr.write(`${error.detail}${retry === undefined ? '' : ` (in ${retry} s)`}\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof CaAdoptionError) {
      process.stderr.write(`ca adopt: ${error.message}; nothing written\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof RolloverRefusedError) {
      process.stderr.write(`ca rollover: ${error.message}; nothing written\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof RolloverUsageError) {
      process.stderr.write(`ca rollover: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof CrlBundleError) {
      process.stderr.write(`tak crl-bundle: ${error.message}; nothing written\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = error instanceof UsageError ? 2 : 1;
      return;
    }
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
