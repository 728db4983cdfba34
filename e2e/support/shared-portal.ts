import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { FirstAdminBrowser } from './first-admin-browser.js';
import { browserInProfile } from './nss.js';
import type { Portal } from './service.js';

// The portal one e2e run shares (support/global-setup.ts starts it). Its data outlives each
// file: a file that uses it makes callsigns of its own and reads only what it made.

/** The shared portal's first admin. */
export const SHARED_ADMIN = 'Eagle9';

interface SharedPortal extends Portal {
  admin: { callsign: string; pfxFile: string; password: string; home: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2ePortal: SharedPortal;
  }
}

/** The shared portal's address and files. */
export function sharedPortal(): Portal {
  return inject('e2ePortal');
}

/**
 * The shared portal's first admin with their key in a Chromium of this file's own (the NSS
 * profile is the run's; the certificate policy for the mTLS host is in place).
 */
export async function sharedAdminBrowser(): Promise<FirstAdminBrowser> {
  const { admin } = inject('e2ePortal');
  const keyed = await browserInProfile(admin.home);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-admin-key-'));
  return {
    keyed,
    key: { pfxFile: admin.pfxFile, password: admin.password },
    workDir,
    async close() {
      await keyed.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
