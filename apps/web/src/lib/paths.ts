/**
 * Every page of the app by name, for the route table in `app/router.tsx` and for every link,
 * redirect and navigation. A page with a parameter has its pattern (`path`, for the route table)
 * and `href(value)` (for links; the value encoded).
 */

function withParam<Base extends string, Name extends string>(base: Base, name: Name) {
  return {
    path: `${base}/:${name}` as const,
    href: (value: string) => `${base}/${encodeURIComponent(value)}`,
  };
}

const ADMIN = '/app/admin';
const USERS = '/app/users';
const TAK = '/app/services/tak';
const CODE_LIST = `${ADMIN}/user-management/code-list`;
const BULK = `${ADMIN}/user-management/bulk`;
const PEOPLE = `${ADMIN}/people`;

export const paths = {
  home: { path: '/' },
  login: { path: '/login' },
  loginCallsign: { path: '/login/callsign' },
  loginEnrollment: { path: '/login/enrollment' },
  loginCreateMtls: { path: '/login/createmtls' },
  admin: {
    home: { path: ADMIN },
    manageUsers: { path: `${ADMIN}/manageusers` },
    /** The spec's Manage users page: a bookmark to it leads to the members table (`people`). */
    userManagement: { path: `${ADMIN}/user-management` },
    codeList: { path: CODE_LIST },
    inviteCode: withParam(CODE_LIST, 'inviteCode'),
    approval: { path: `${ADMIN}/user-management/approval` },
    bulk: { path: BULK },
    batch: withParam(BULK, 'batchId'),
    batchPrint: {
      path: `${BULK}/:batchId/print`,
      href: (batchId: string) => `${withParam(BULK, 'batchId').href(batchId)}/print`,
    },
    expiringKeys: { path: `${ADMIN}/user-management/expiring-keys` },
    audit: { path: `${ADMIN}/audit` },
    groups: { path: `${ADMIN}/groups` },
    /** The members table (docs/api.md#the-members-table). */
    people: { path: PEOPLE },
    /** One member's page: their details, keys and actions. */
    member: withParam(PEOPLE, 'callsign'),
    /** The TAK Server's readiness and the CA. */
    system: { path: `${ADMIN}/system` },
  },
  users: {
    home: withParam(USERS, 'callsign'),
  },
  /** The signed-in member's own keys (members and admins alike). */
  keys: { path: '/app/keys' },
  tak: {
    home: { path: TAK },
    quickstart: { path: `${TAK}/quickstart` },
    quickstartStep: withParam(`${TAK}/quickstart`, 'step'),
    usage: { path: `${TAK}/usage` },
    usageStep: withParam(`${TAK}/usage`, 'step'),
  },
  error: { path: '/error' },
} as const;
