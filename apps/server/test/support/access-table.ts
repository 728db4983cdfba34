import type { Access, ApiRoute } from '../../src/modules/auth/access.js';

/** Where each access level is answered, and with what, in the README's words. */
const FACE: Record<Access, string> = {
  ungated: 'both',
  anonymous: 'public (mTLS: with a key)',
  'first-admin': 'public',
  any: 'public or mTLS',
  member: 'public or mTLS',
  'admin-check': 'public or mTLS',
  admin: 'mTLS only',
};

const CREDENTIAL: Record<Access, string> = {
  ungated: 'none, not even a key on the mTLS face',
  anonymous: 'none',
  'first-admin': 'bearer JWT of scope `first-admin`',
  any: 'bearer JWT of any scope, or a key',
  member: 'an active member’s bearer JWT or key',
  'admin-check': 'an admin’s bearer JWT or key (a sign-in check: grants nothing)',
  admin: 'an admin’s key; a bearer JWT is refused',
};

export const TABLE_START =
  '<!-- access table: generated from the registered routes (npm run openapi rewrites it) -->';
export const TABLE_END = '<!-- end of access table -->';

/** The README's access table: one row per registered /api route, in registration order. */
export function accessTable(routes: readonly ApiRoute[]): string {
  const rows = routes.map((route) => {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const also = [
      ...(route.failureBudget ? ['spends the failure budget'] : []),
      ...(route.mints ? ['mints a certificate'] : []),
      ...(route.handsOutKey
        ? ['an enrollment JWT only until 24 h after the member’s first key']
        : []),
      ...(route.writes ? ['writes (refused cross-site)'] : []),
    ];
    return `| \`${route.method} ${path}\` | ${FACE[route.access]} | ${CREDENTIAL[route.access]} | ${also.join('; ')} |`;
  });
  return [
    TABLE_START,
    '| call | face | credential | also |',
    '|---|---|---|---|',
    ...rows,
    TABLE_END,
  ].join('\n');
}

/** `readme` with its access table replaced by `table` (the text between the markers). */
export function withAccessTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end === -1) throw new Error('README.md has no access table markers');
  return `${readme.slice(0, start)}${table}${readme.slice(end + TABLE_END.length)}`;
}
