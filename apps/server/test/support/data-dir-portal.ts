import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openPortal, type Portal } from '../../src/portal.js';

/**
 * Opens the portal of `workDir/data` (SQLite) as the CLI would, runs `work` on it and closes it:
 * the CLI tests set up and read back what the built CLI changes this way.
 */
export async function withPortalIn<T>(
  workDir: string,
  work: (portal: Portal) => Promise<T>,
): Promise<T> {
  const portal = await openPortal(loadConfig({ PORTAL_DATA_DIR: path.join(workDir, 'data') }), {
    migrate: true,
  });
  try {
    return await work(portal);
  } finally {
    await portal.close();
  }
}
