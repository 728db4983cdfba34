// Runs once per e2e run, before its files: the portal the browser journeys share, and its first
// admin's key in an NSS profile that each file's Chromium opens (support/shared-portal.ts). Files
// that need a portal configured otherwise start their own (support/service.ts). It builds
// nothing: the journeys run the build the gate made first.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { firstAdmin } from './api.js';
import { allowCertificateSelection, keyProfile } from './nss.js';
import { startService } from './service.js';
import { SHARED_ADMIN } from './shared-portal.js';

export default async function startSharedPortal(
  project: TestProject,
): Promise<() => Promise<void>> {
  // Every file's wrong codes and dead links land on this one portal: no failure budget to run out.
  const service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '100000' });
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-shared-'));
  const cleanUp: (() => Promise<unknown>)[] = [
    () => rm(workDir, { recursive: true, force: true }),
    () => service.stop(),
  ];
  const tearDown = async () => {
    for (const step of cleanUp.splice(0)) await step();
  };
  try {
    const key = { pfxFile: path.join(workDir, `${SHARED_ADMIN}.pfx`), password: SHARED_ADMIN };
    await writeFile(key.pfxFile, (await firstAdmin(service, SHARED_ADMIN)).pfx);
    const profile = await keyProfile(service.rootCaFile, key);
    cleanUp.unshift(() => profile.remove());
    cleanUp.unshift(await allowCertificateSelection(service.mtlsOrigin));
    project.provide('e2ePortal', {
      port: service.port,
      takEnrollPort: service.takEnrollPort,
      origin: service.origin,
      mtlsOrigin: service.mtlsOrigin,
      adminLink: service.adminLink,
      dataDir: service.dataDir,
      rootCaFile: service.rootCaFile,
      admin: { callsign: SHARED_ADMIN, ...key, home: profile.home },
    });
  } catch (error) {
    await tearDown();
    throw error;
  }
  return tearDown;
}
