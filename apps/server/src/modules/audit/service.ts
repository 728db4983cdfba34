import type { Kysely } from 'kysely';
import {
  AUDIT_PAGE_DEFAULT,
  type AuditAction,
  type AuditFilter as FilterQuery,
  type AuditListQuery,
} from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { BadRequestError } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import {
  appendAuditEvent as insertAuditEvent,
  findAuditCursor,
  listAuditEvents,
  type AuditEvent,
  type AuditFilter,
  type NewAuditEvent,
} from './repository.js';

export type { NewAuditEvent };

/** An event of the portal: its action one of the contract's `AUDIT_ACTION_GROUPS`. */
export type PortalAuditEvent = NewAuditEvent & { action: AuditAction };

/**
 * Appends to the audit log, as every other module does. A state change passes its own
 * transaction, so its event commits or rolls back with it; a refusal that changed nothing
 * appends on its own. `detail` never holds a code, token or key. Returns the event's id.
 */
export function appendAuditEvent(executor: Executor, event: PortalAuditEvent): Promise<string> {
  return insertAuditEvent(executor, event);
}

/** Rows read per query while an export streams: bounded memory, and the database never held. */
export const EXPORT_PAGE = 500;

export interface AuditPage {
  events: AuditEvent[];
  /** The id to page below for the next page; null when this one is the last. */
  nextBefore: string | null;
}

/** The filter of a query, its times as epoch milliseconds; 400 when `from` is not before `to`. */
export function auditFilterOf(query: FilterQuery): AuditFilter {
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new BadRequestError('"from" must be before "to"');
  }
  return { actor: query.actor, action: query.action, target: query.target, from, to };
}

/**
 * The audit log as admins read it (docs/operations.md): pages newest first, and exports of a whole
 * filtered range. It only reads and appends: no call changes or removes an event (the database
 * refuses that too).
 */
export class AuditService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
  ) {}

  /** One page; `before` must be the id of an event (a page's `next_before`), else 400. */
  async page(query: AuditListQuery): Promise<AuditPage> {
    const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
    const before = query.before === undefined ? undefined : await this.cursor(query.before);
    // One more than asked tells whether another page follows.
    const events = await listAuditEvents(this.db, {
      filter: auditFilterOf(query),
      before,
      limit: limit + 1,
    });
    const page = events.slice(0, limit);
    return { events: page, nextBefore: events.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  /**
   * An export of every event `filter` selects up to the moment it begins, recorded in the log as
   * done by `actor`. The events are read lazily, EXPORT_PAGE at a time, as the consumer pulls.
   */
  async export(actor: Actor, filter: AuditFilter): Promise<AsyncGenerator<AuditEvent>> {
    const at = this.now().getTime();
    const until = filter.to === undefined ? at : Math.min(filter.to, at);
    await insertAuditEvent(this.db, {
      at,
      actor: actor.callsign,
      action: 'audit.export',
      target: null,
      outcome: 'success',
      clientAddress: actor.clientAddress,
      detail: exportDetail(filter),
    });
    return this.read({ ...filter, to: until });
  }

  private async *read(filter: AuditFilter): AsyncGenerator<AuditEvent> {
    let before: AuditEvent | undefined;
    for (;;) {
      const events = await listAuditEvents(this.db, { filter, before, limit: EXPORT_PAGE });
      yield* events;
      if (events.length < EXPORT_PAGE) return;
      before = events.at(-1);
    }
  }

  private async cursor(id: string) {
    const cursor = await findAuditCursor(this.db, id);
    if (cursor === undefined) throw new BadRequestError('"before" names no audit event');
    return cursor;
  }
}

/** The filter as the export's own event records it: what was given, times in ISO 8601. */
function exportDetail(filter: AuditFilter): Record<string, string> {
  const detail: Record<string, string> = {};
  for (const key of ['actor', 'action', 'target'] as const) {
    const value = filter[key];
    if (value !== undefined) detail[key] = value;
  }
  if (filter.from !== undefined) detail.from = new Date(filter.from).toISOString();
  if (filter.to !== undefined) detail.to = new Date(filter.to).toISOString();
  return detail;
}
