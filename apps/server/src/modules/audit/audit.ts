import type { FastifyRequest } from 'fastify';
import type { AuditOutcome } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { appendAuditEvent } from './repository.js';

export interface AuditEntry {
  actor: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** Never a code, token or key. */
  detail?: unknown;
}

/** Records an admin action or a sign-in with the request's client address and time. */
export async function audit(
  executor: Executor,
  request: FastifyRequest,
  entry: AuditEntry,
  at: number = Date.now(),
): Promise<void> {
  await appendAuditEvent(executor, { ...entry, at, clientAddress: request.ip });
}
