import type { Selectable } from 'kysely';
import type { AuditEventsTable, AuditOutcome } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { uuidV7 } from '../../db/uuid-v7.js';

export interface NewAuditEvent {
  at: number;
  /** Callsign of who acted; null for anonymous calls. */
  actor: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  clientAddress: string | null;
  /** Any JSON-serialisable value; never codes, tokens or keys. */
  detail?: unknown;
}

export interface AuditEvent extends Required<NewAuditEvent> {
  id: string;
}

/** Appends an event and returns its id. Ids sort in the order events were appended. */
export async function appendAuditEvent(executor: Executor, event: NewAuditEvent): Promise<string> {
  const id = uuidV7();
  await executor
    .insertInto('audit_events')
    .values({
      id,
      occurred_at: event.at,
      actor: event.actor,
      action: event.action,
      target: event.target,
      outcome: event.outcome,
      client_address: event.clientAddress,
      detail: event.detail === undefined ? null : JSON.stringify(event.detail),
    })
    .execute();
  return id;
}

/** The latest events, newest first. */
export async function listRecentAuditEvents(
  executor: Executor,
  limit = 100,
): Promise<AuditEvent[]> {
  const rows = await executor
    .selectFrom('audit_events')
    .selectAll()
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toAuditEvent);
}

function toAuditEvent(row: Selectable<AuditEventsTable>): AuditEvent {
  return {
    id: row.id,
    at: row.occurred_at,
    actor: row.actor,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    clientAddress: row.client_address,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as unknown),
  };
}
