import { parseArgs } from 'node:util';
import type { Actor } from '../modules/auth/actor.js';
import { RolloverRefusedError } from '../modules/certificates/rollover.js';
import type { Portal } from '../portal.js';

const CLI: Actor = { callsign: 'cli', clientAddress: null };

/** A usage mistake of `ca rollover` (exit status 2). */
export class RolloverUsageError extends Error {}

/**
 * `ca rollover begin [--renew-by YYYY-MM-DD]`, `ca rollover finish [--force]` and
 * `ca rollover status` (docs/operations.md): what the operator reads back.
 * A refusal throws RolloverRefusedError, with nothing written.
 */
export async function caRollover(portal: Portal, args: string[]): Promise<string> {
  const [step, ...rest] = args;
  const rollover = portal.services.caRollover;
  if (step === 'begin') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { 'renew-by': { type: 'string' } },
    });
    if (positionals.length > 0)
      throw new RolloverUsageError('ca rollover begin takes only --renew-by');
    const renewBy = values['renew-by'] === undefined ? undefined : parseDate(values['renew-by']);
    const begun = await rollover.begin(CLI, renewBy === undefined ? {} : { renewBy });
    return (
      `Rollover begun: issuing CA ${begun.generation} (${begun.subject}, SHA-256 ` +
      `${begun.fingerprint}) signs every new key from now on; both issuing CAs are in ` +
      `/ca/ca.pem, the truststores and the packages until ca rollover finish.\n` +
      `Members on the old CA are asked to renew by ${begun.renewBy.toISOString().slice(0, 10)}.\n` +
      `Next: put /ca/ca.pem into each TAK Server's truststore and reload it ` +
      `(docs/operations.md, "Rolling the issuing CA over").\n`
    );
  }
  if (step === 'finish') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { force: { type: 'boolean', default: false } },
    });
    if (positionals.length > 0)
      throw new RolloverUsageError('ca rollover finish takes only --force');
    const finished = await rollover.finish(CLI, { force: values.force });
    return (
      `Rollover finished: issuing CA ${finished.generation - 1} is retired (no longer in new ` +
      `truststores or /ca/ca.pem). ${finished.revokedRenewed} renewed key(s) of it revoked as ` +
      `superseded` +
      (finished.revokedForced.length === 0
        ? ''
        : `; ${finished.revokedForced.length} key(s) revoked by --force: ` +
          finished.revokedForced.map((key) => `${key.callsign} (${key.purpose})`).join(', ')) +
      `.\nIts CRL stays published until ${
        finished.crlPublishedUntil?.toISOString() ?? 'now (it issued no key)'
      }.\n`
    );
  }
  if (step === 'status') {
    if (rest.length > 0) throw new RolloverUsageError('ca rollover status takes no arguments');
    const status = await rollover.status();
    return (
      `Issuing CA ${status.generation}; rollover: ${status.state}` +
      (status.state === 'overlap'
        ? ` (begun ${status.begunAt?.toISOString() ?? ''}, renew by ${
            status.renewBy?.toISOString().slice(0, 10) ?? ''
          }); ${status.membersOnPrevious} member(s) and ${status.keysOnPrevious} key(s) still on ` +
          `issuing CA ${status.previous?.generation ?? ''}`
        : '') +
      `. Next: ${status.next}.\n`
    );
  }
  throw new RolloverUsageError('ca rollover takes a step: begin, finish or status');
}

function parseDate(text: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T23:59:59Z`) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new RolloverUsageError(
      `--renew-by takes a date as YYYY-MM-DD, not ${JSON.stringify(text)}`,
    );
  }
  return date;
}

export { RolloverRefusedError };
