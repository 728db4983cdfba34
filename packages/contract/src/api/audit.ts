import { z } from 'zod';
import { isoTime, NO_CONTROL_CHARACTERS, TYPED_LINE } from './fields.js';

/** Most events one page of GET admin/audit holds; the default when `limit` is not given. */
export const AUDIT_PAGE_MAX = 500;
export const AUDIT_PAGE_DEFAULT = 50;

/** A query parameter sent empty (a form field left blank) is as if it were not sent. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

const filterText = optional(
  z.string().trim().min(1).max(200).regex(TYPED_LINE, NO_CONTROL_CHARACTERS),
);

/**
 * Which events: `actor` and `target` match a callsign (or name) in any case; `action` matches the
 * action or every action below it (`invite` matches `invite.create` and `invite.delete`); `from`
 * and `to` bound the time (`from` included, `to` not), ISO 8601 with a zone.
 */
export const auditFilterSchema = z.strictObject({
  actor: filterText,
  action: filterText,
  target: filterText,
  from: optional(z.iso.datetime({ offset: true })),
  to: optional(z.iso.datetime({ offset: true })),
});

/** GET admin/audit (admin): newest first, `before` the id of the last event of the previous page. */
export const auditListQuerySchema = auditFilterSchema.extend({
  before: optional(z.uuid()),
  limit: optional(z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX)),
});

export const auditEventSchema = z.object({
  id: z.string(),
  at: isoTime,
  /** Who acted: a callsign, `cli` or `first-start`; null for a caller not signed in. */
  actor: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  outcome: z.enum(['success', 'failure']),
  /** The caller's address; null for the command line. */
  client_address: z.string().nullable(),
  /** What else the event records (a serial, a reason); never a code, token or key. */
  detail: z.unknown(),
});

export const auditListResponseSchema = z.object({
  events: z.array(auditEventSchema),
  /** The `before` of the next page; null when this page is the last. */
  next_before: z.string().nullable(),
});

/** GET admin/audit.csv (admin): every event the filter selects, newest first, as CSV. */
export const auditCsvResponseSchema = z.string();

/** The CSV's columns, in order. */
export const AUDIT_CSV_COLUMNS = [
  'id',
  'time',
  'actor',
  'action',
  'target',
  'outcome',
  'client_address',
  'detail',
] as const;

export type AuditFilter = z.infer<typeof auditFilterSchema>;
export type AuditListQuery = z.infer<typeof auditListQuerySchema>;
export type AuditEventAnswer = z.infer<typeof auditEventSchema>;
export type AuditListResponse = z.infer<typeof auditListResponseSchema>;
