import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { AuditEventsTable, AuditOutcome, Database } from '../../db/schema.js';
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

/** Which events; every field left out matches all. Times are epoch milliseconds. */
export interface AuditFilter {
  /** A callsign (or `cli`), in any case. */
  actor?: string | undefined;
  /** The action, or a prefix of actions: `invite` matches `invite.create`. */
  action?: string | undefined;
  /** In any case. */
  target?: string | undefined;
  /** Included. */
  from?: number | undefined;
  /** Excluded. */
  to?: number | undefined;
}

/** Where a page starts: below this event in the order (newest first). */
export interface AuditCursor {
  at: number;
  id: string;
}

type AuditQuery = SelectQueryBuilder<Database, 'audit_events', Selectable<AuditEventsTable>>;

function filtered(query: AuditQuery, filter: AuditFilter): AuditQuery {
  let result = query;
  const { actor, action, target, from, to } = filter;
  if (actor !== undefined) {
    result = result.where((eb) => eb(eb.fn('lower', ['actor']), '=', actor.toLowerCase()));
  }
  if (target !== undefined) {
    result = result.where((eb) => eb(eb.fn('lower', ['target']), '=', target.toLowerCase()));
  }
  if (action !== undefined) {
    // Below a prefix without LIKE, whose wildcards an action name would have to escape.
    const below = `${action}.`;
    result = result.where((eb) =>
      eb.or([
        eb('action', '=', action),
        eb(eb.fn('substr', ['action', eb.val(1), eb.val(below.length)]), '=', below),
      ]),
    );
  }
  if (from !== undefined) result = result.where('occurred_at', '>=', from);
  if (to !== undefined) result = result.where('occurred_at', '<', to);
  return result;
}

/**
 * One page of the events `filter` selects, newest first (by time, then id), starting below
 * `before`. Keyset paging: a page costs the same however deep it lies, and events appended
 * meanwhile never shift the pages that follow.
 */
export async function listAuditEvents(
  executor: Executor,
  page: { filter?: AuditFilter; before?: AuditCursor | undefined; limit: number },
): Promise<AuditEvent[]> {
  let query = filtered(executor.selectFrom('audit_events').selectAll(), page.filter ?? {});
  const { before } = page;
  if (before !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple('occurred_at', 'id'), '<', eb.tuple(before.at, before.id)),
    );
  }
  const rows = await query
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map(toAuditEvent);
}

/** The place of an event in the order, for paging below it; undefined for an unknown id. */
export async function findAuditCursor(
  executor: Executor,
  id: string,
): Promise<AuditCursor | undefined> {
  const row = await executor
    .selectFrom('audit_events')
    .select(['occurred_at', 'id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { at: row.occurred_at, id: row.id };
}

/** The latest events, newest first. */

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
