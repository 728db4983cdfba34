import { z } from 'zod';
import { callsignField, isoTime, NO_CONTROL_CHARACTERS, TYPED_LINE } from './fields.js';

/** Most members one page of GET admin/members holds, and the page when `limit` is not given. */
export const MEMBERS_PAGE_MAX = 200;
export const MEMBERS_PAGE_DEFAULT = 50;
/** The longest search text: longer than any callsign, team or role. */
export const MEMBERS_SEARCH_MAX = 60;

/**
 * What the members table sorts by; a leading `-` reverses it. `key_expires_at`: a member without
 * a valid key sorts after every expiry (last ascending); `last_seen_tak_at`: never seen sorts
 * before every time (first ascending). Ties go by callsign (in any case) in the same direction.
 */
export const MEMBER_SORT_KEYS = [
  'callsign',
  'key_expires_at',
  'last_seen_tak_at',
  'enrolled_at',
] as const;
export type MemberSortKey = (typeof MEMBER_SORT_KEYS)[number];
export const MEMBER_SORTS = [
  ...MEMBER_SORT_KEYS,
  ...MEMBER_SORT_KEYS.map((key) => `-${key}` as const),
] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];

/** A member's state: waiting for approval, a member, turned away, or revoked. */
export const MEMBER_STATES = ['pending', 'active', 'rejected', 'revoked'] as const;
export type MemberState = (typeof MEMBER_STATES)[number];

/**
 * The `before` of a page: the `next` of the page before it, as it came (the last row's sort
 * value and callsign). Checked against the sort it was made for.
 */
export const MEMBERS_CURSOR_PATTERN = /^(?:\d{1,16}\.)?[A-Za-z0-9]{1,30}$/;

/** A query parameter sent empty (a search box left blank) is as if it were not sent. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

/** GET admin/members (admin): `q` a case-insensitive part of a callsign, team or role. */
export const membersListQuerySchema = z.strictObject({
  q: optional(
    z.string().trim().min(1).max(MEMBERS_SEARCH_MAX).regex(TYPED_LINE, NO_CONTROL_CHARACTERS),
  ),
  sort: optional(z.enum(MEMBER_SORTS)),
  before: optional(
    z.string().regex(MEMBERS_CURSOR_PATTERN, { error: 'not a cursor of this list (next)' }),
  ),
  limit: optional(z.coerce.number().int().min(1).max(MEMBERS_PAGE_MAX)),
});

export const memberRowSchema = z.object({
  callsign: z.string(),
  admin: z.boolean(),
  state: z.enum(MEMBER_STATES),
  /** The member's TAK preset: team colour and role as ATAK names them. */
  team: z.string(),
  role: z.string(),
  /** The unit's groups the member belongs to (docs/directory.md). */
  groups: z.array(z.string()),
  /** When the member joined (enrolled, or was made admin). */
  enrolled_at: isoTime,
  /** The latest expiry of the member's keys that are not revoked (past: expired); null: none. */
  key_expires_at: isoTime.nullable(),
  /** When a TAK Server last asked about one of the member's keys; null: never. */
  last_seen_tak_at: isoTime.nullable(),
});

export const membersListResponseSchema = z.object({
  members: z.array(memberRowSchema),
  /** The `before` of the next page; null when this page is the last. */
  next: z.string().nullable(),
});

/** GET admin/members/{callsign} (admin): one member's row, in any state. */
export const memberParamsSchema = z.strictObject({ callsign: callsignField });
export const memberResponseSchema = z.object({ member: memberRowSchema });

export type MembersListQuery = z.infer<typeof membersListQuerySchema>;
export type MemberRow = z.infer<typeof memberRowSchema>;
export type MembersListResponse = z.infer<typeof membersListResponseSchema>;
export type MemberResponse = z.infer<typeof memberResponseSchema>;
