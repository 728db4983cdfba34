/**
 * The admin area's query keys: one family per list, all under `admin`, so that a change
 * invalidates exactly the family it touched (and `adminKeys.all` everything).
 */
export const adminKeys = {
  all: ['admin'] as const,
  people: () => [...adminKeys.all, 'people'] as const,
  memberTable: (filters: object) => [...adminKeys.people(), 'table', filters] as const,
  member: (callsign: string) => [...adminKeys.people(), 'member', callsign.toLowerCase()] as const,
  invites: () => [...adminKeys.all, 'invites'] as const,
  inviteList: () => [...adminKeys.invites(), 'list'] as const,
  approvals: () => [...adminKeys.all, 'approvals'] as const,
  approvalList: () => [...adminKeys.approvals(), 'list'] as const,
  idmConsole: () => [...adminKeys.all, 'idm-console'] as const,
  presets: () => [...adminKeys.people(), 'preset'] as const,
  preset: (callsign: string) => [...adminKeys.presets(), callsign.toLowerCase()] as const,
  keys: () => [...adminKeys.all, 'keys'] as const,
  personKeys: (callsign: string) => [...adminKeys.keys(), 'person', callsign] as const,
  expiring: (days: number) => [...adminKeys.keys(), 'expiring', days] as const,
  caExpiry: () => [...adminKeys.all, 'ca-expiry'] as const,
  audit: () => [...adminKeys.all, 'audit'] as const,
  auditList: (filters: object) => [...adminKeys.audit(), 'list', filters] as const,
  takReadiness: () => [...adminKeys.all, 'tak-readiness'] as const,
  groups: () => [...adminKeys.all, 'groups'] as const,
  groupList: () => [...adminKeys.groups(), 'list'] as const,
  memberGroups: (callsign: string) =>
    [...adminKeys.groups(), 'member', callsign.toLowerCase()] as const,
  directory: () => [...adminKeys.all, 'directory'] as const,
};
