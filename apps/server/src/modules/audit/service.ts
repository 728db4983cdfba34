import type { Executor } from '../../db/transaction.js';
import { appendAuditEvent as insertAuditEvent, type NewAuditEvent } from './repository.js';

export type { NewAuditEvent };

/**
 * Appends to the audit log, as every other module does. A state change passes its own
 * transaction, so its event commits or rolls back with it; a refusal that changed nothing
 * appends on its own. `detail` never holds a code, token or key. Returns the event's id.
 */
export function appendAuditEvent(executor: Executor, event: NewAuditEvent): Promise<string> {
  return insertAuditEvent(executor, event);
}
