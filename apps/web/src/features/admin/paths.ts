/** The admin area's pages (spec §2), as absolute paths for links and navigation. */
export const ADMIN_ROOT = '/app/admin';

export const adminPaths = {
  home: ADMIN_ROOT,
  manageUsers: `${ADMIN_ROOT}/manageusers`,
  userManagement: `${ADMIN_ROOT}/user-management`,
  codeList: `${ADMIN_ROOT}/user-management/code-list`,
  code: (code: string) => `${ADMIN_ROOT}/user-management/code-list/${encodeURIComponent(code)}`,
  approval: `${ADMIN_ROOT}/user-management/approval`,
} as const;
