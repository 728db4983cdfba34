import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, successTrue, TYPED_LINE } from './fields.js';

/**
 * A group's name (docs/directory.md): TAK Server's group, published to the directory with a prefix.
 * Names ending in `_READ` or `_WRITE` are refused: TAK Server reads those suffixes as the
 * receive-only and send-only halves of a group (its LDAP authenticator's readGroupSuffix and
 * writeGroupSuffix), so such a name would not reach it as typed.
 */
export const GROUP_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;
export const GROUP_NAME_RESERVED_SUFFIXES = ['_READ', '_WRITE'] as const;
export const GROUP_DESCRIPTION_MAX_LENGTH = 200;

export const groupNameField = z
  .string()
  .regex(
    GROUP_NAME_PATTERN,
    'A group name is 1 to 64 letters, digits, spaces, _ . or -, starting with a letter or digit',
  )
  .refine(
    (name) => !GROUP_NAME_RESERVED_SUFFIXES.some((suffix) => name.endsWith(suffix)),
    'A group name may not end in _READ or _WRITE (TAK Server reads them as a direction)',
  );

/**
 * TAK Server's IN/OUT: `both` sends and receives, `in` may send into the group only, `out`
 * receives only.
 */
export const groupDirectionSchema = z.enum(['both', 'in', 'out']);
export type GroupDirection = z.infer<typeof groupDirectionSchema>;

/** A member's place in a group; `direction` defaults to `both`. */
export const groupMembershipSchema = z.strictObject({
  name: groupNameField,
  direction: groupDirectionSchema.default('both'),
});
export type GroupMembership = z.infer<typeof groupMembershipSchema>;
export type GroupMembershipInput = z.input<typeof groupMembershipSchema>;

/** Most groups one member, invite or batch may carry. */
export const MAX_GROUPS_PER_MEMBER = 50;

/** The groups of a member, an invite or a bulk batch: each name once. */
export const groupMembershipsField = z
  .array(groupMembershipSchema)
  .max(MAX_GROUPS_PER_MEMBER)
  .refine(
    (groups) => new Set(groups.map((group) => group.name.toLowerCase())).size === groups.length,
    'Each group once',
  );

/** GET groups (admin): every group with its members (callsign and direction), by name. */
export const groupsResponseSchema = z.object({
  groups: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      members: z.array(z.object({ callsign: z.string(), direction: groupDirectionSchema })),
    }),
  ),
});
export type GroupsResponse = z.infer<typeof groupsResponseSchema>;

/** POST groups (admin) */
export const createGroupBodySchema = z.strictObject({
  name: groupNameField,
  description: z
    .string()
    .trim()
    .max(GROUP_DESCRIPTION_MAX_LENGTH)
    .regex(TYPED_LINE, NO_CONTROL_CHARACTERS)
    .default(''),
});
export type CreateGroupBody = z.input<typeof createGroupBodySchema>;
export const createGroupResponseSchema = z.object({ name: z.string(), description: z.string() });
export type CreateGroupResponse = z.infer<typeof createGroupResponseSchema>;

/** DELETE groups/{name} (admin); `?force=true` takes the members out of it first. */
export const groupParamsSchema = z.strictObject({ name: groupNameField });
export const deleteGroupQuerySchema = z.strictObject({
  force: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true'),
});
export const deleteGroupResponseSchema = z.object({
  success: successTrue,
  name: z.string(),
  /** How many members it had (0 unless forced). */
  members_removed: z.number().int(),
});
export type DeleteGroupResponse = z.infer<typeof deleteGroupResponseSchema>;

/** PUT people/{callsign}/groups (admin): the member's groups, all of them (others are left). */
export const memberGroupsBodySchema = z.strictObject({ groups: groupMembershipsField });
export type MemberGroupsBody = z.input<typeof memberGroupsBodySchema>;

/** PUT people/{callsign}/groups, GET people/{callsign}/groups (admin) and GET me/groups. */
export const memberGroupsResponseSchema = z.object({
  callsign: z.string(),
  groups: z.array(
    z.object({ name: z.string(), description: z.string(), direction: groupDirectionSchema }),
  ),
});
export type MemberGroupsResponse = z.infer<typeof memberGroupsResponseSchema>;

/** GET admin/directory (admin): the LDAP directory's publication (docs/directory.md). */
export const directoryStatusResponseSchema = z.object({
  /** False: the embedded default, no directory configured (the rest is then null or zero). */
  configured: z.boolean(),
  url: z.string().nullable(),
  base_dn: z.string().nullable(),
  in_sync: z.boolean(),
  last_sync: z.string().nullable(),
  last_error: z.string().nullable(),
  pending: z.number().int(),
  /** Each entry the last sync could not write (the rest was written), and why. */
  entry_errors: z.array(z.object({ dn: z.string(), error: z.string() })),
});
export type DirectoryStatusResponse = z.infer<typeof directoryStatusResponseSchema>;
