import { CODE_LENGTH, loginLink } from '@callsign/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { appendAuditEvent } from '../audit/service.js';
import { generateCode, hashCode } from '../auth/codes.js';
import { insertLoginCode } from './login-code-repository.js';

/** Who makes the code printed at start while no admin exists (main.ts). */
export const FIRST_START = 'first-start';

export interface AdminCodeOptions {
  ttlMs: number;
  /**
   * Who asked for it (`first-start` or `cli`), kept with the code and in the audit log: a
   * first-start code dies once any admin exists (FirstuserService), a CLI one is the recovery.
   */
  actor: string;
  now?: Date;
}

/** Makes a single-use admin code (docs/api.md); only its hash is kept. */
export async function createAdminCode(
  db: Kysely<Database>,
  options: AdminCodeOptions,
): Promise<{ code: string; expiresAt: Date }> {
  const code = generateCode(CODE_LENGTH.admin);
  const now = (options.now ?? new Date()).getTime();
  const expiresAt = now + options.ttlMs;
  await db.transaction().execute(async (trx) => {
    await insertLoginCode(trx, {
      codeHash: hashCode(code),
      kind: 'admin',
      subjectCallsign: null,
      createdAt: now,
      expiresAt,
      createdBy: options.actor,
    });
    await appendAuditEvent(trx, {
      at: now,
      actor: options.actor,
      action: 'admin-code.create',
      target: null,
      outcome: 'success',
      clientAddress: null,
      detail: { expiresAt: new Date(expiresAt).toISOString() },
    });
  });
  return { code, expiresAt: new Date(expiresAt) };
}

/** The link the first administrator opens: the login page with the code filled in. */
export function adminLoginLink(publicOrigin: string, code: string): string {
  return loginLink(publicOrigin, code);
}
