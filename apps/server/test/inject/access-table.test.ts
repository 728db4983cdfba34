import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessTable, withAccessTable } from '../support/access-table.js';
import { registeredApiRoutes } from '../support/api-routes.js';
import { REPO_ROOT } from '../support/repo.js';

// The README's security section states who may call what in one table, written from the routes
// the portal registers: a route added or a declaration changed shows up here, in review.
// After an intended change: npm run openapi (rewrites the table), then commit README.md.

describe('the README’s access table', () => {
  it('is the table of the registered routes', async () => {
    const file = path.join(REPO_ROOT, 'README.md');
    const readme = await readFile(file, 'utf8');
    const table = accessTable(await registeredApiRoutes());
    expect(table).toContain('`DELETE /api/v1/people/{callsign}` | mTLS only |');
    await expect(withAccessTable(readme, table)).toMatchFileSnapshot(file);
  });
});
