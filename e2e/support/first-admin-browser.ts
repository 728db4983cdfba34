import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { firstAdmin } from './api.js';
import { allowCertificateSelection, browserWithKey, type KeyedBrowser } from './nss.js';
import type { Portal } from './service.js';

export interface FirstAdminBrowser {
  keyed: KeyedBrowser;
  /** The admin's .pfx (password: the callsign), for API calls with the key. */
  key: { pfxFile: string; password: string };
  /** The key's own directory, for whatever else a test writes (deleted by `close`). */
  workDir: string;
  /** Closes the browser, takes the certificate policy back and deletes the key's directory. */
  close(): Promise<void>;
}

/**
 * The first admin of `service` (made through the public API as `callsign`) with their key in a
 * Chromium of its own, which presents it to the service's mTLS face without asking.
 */
export async function firstAdminBrowser(
  service: Portal,
  callsign: string,
): Promise<FirstAdminBrowser> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-admin-key-'));
  const key = { pfxFile: path.join(workDir, `${callsign}.pfx`), password: callsign };
  await writeFile(key.pfxFile, (await firstAdmin(service, callsign)).pfx);
  const undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
  const keyed = await browserWithKey(service.rootCaFile, key);
  return {
    keyed,
    key,
    workDir,
    async close() {
      await keyed.close();
      await undoPolicy();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
