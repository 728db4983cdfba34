import type { Executor } from '../../db/transaction.js';
import { listAuditEvents, type AuditEvent } from './repository.js';

/** The newest audit events first: what the calls under test recorded (tests only). */
export function listRecentAuditEvents(executor: Executor, limit = 100): Promise<AuditEvent[]> {
  return listAuditEvents(executor, { limit });
}
