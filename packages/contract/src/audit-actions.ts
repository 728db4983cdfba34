/**
 * Every action the portal writes to its audit log, grouped by what it acts on (the part before
 * the dot): the audit page offers them in a picker, and the server's `appendAuditEvent` accepts
 * only these, so a new action is added here first. Filtering by a group (`invite`) selects every
 * action of it. No zod here: the admin area reads it without the schemas.
 */
export const AUDIT_ACTION_GROUPS = {
  'sign-in': ['sign-in', 'sign-out'],
  member: [
    'member.add-admin',
    'member.promote',
    'member.demote',
    'member.revoke',
    'member.preset',
    'member.groups',
  ],
  group: ['group.create', 'group.delete'],
  enrollment: ['enrollment.create', 'enrollment.accept', 'enrollment.lock'],
  invite: ['invite.create', 'invite.activate', 'invite.deactivate', 'invite.delete'],
  bulk: ['bulk.create', 'bulk.void'],
  key: ['key.download', 'key.revoke', 'key.supersede'],
  'renewal-code': ['renewal-code.create'],
  tak: ['tak.packages', 'tak.enrollment-token', 'tak.enroll'],
  certificate: ['certificate.server'],
  ca: ['ca.adopt', 'ca.rollover-begin', 'ca.rollover-finish'],
  'admin-code': ['admin-code.create'],
  audit: ['audit.export'],
  backup: ['backup.create', 'backup.restore'],
  'tak-check': ['tak-check', 'tak-check.member', 'tak-check.certificate'],
} as const;

export type AuditActionGroup = keyof typeof AUDIT_ACTION_GROUPS;
export type AuditAction = (typeof AUDIT_ACTION_GROUPS)[AuditActionGroup][number];

export const AUDIT_ACTIONS: readonly AuditAction[] = Object.values(AUDIT_ACTION_GROUPS).flat();
