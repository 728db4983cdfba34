import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { firstAdmin } from './support/api.js';
import { keepScreenshot } from './support/browser.js';
import { allowCertificateSelection, browserWithKey, type KeyedBrowser } from './support/nss.js';
import { startService, type Service } from './support/service.js';

// The real thing, once: the member's .pfx imported into Chromium's own certificate store (NSS,
// as on a Linux desktop), the portal's CA trusted there, and Chromium picking the certificate by
// policy — no TLS done by the test tool. Needs root for the managed policy (as CI runs).

let service: Service;
let keyed: KeyedBrowser;
let undoPolicy: () => Promise<void>;
let workDir: string;

beforeAll(async () => {
  service = await startService();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-real-key-'));
  const pfxFile = path.join(workDir, 'Eagle9.pfx');
  await writeFile(pfxFile, (await firstAdmin(service, 'Eagle9')).pfx);
  undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
  keyed = await browserWithKey(service.rootCaFile, { pfxFile, password: 'Eagle9' });
});

afterAll(async () => {
  await keyed.close();
  await undoPolicy();
  await rm(workDir, { recursive: true, force: true });
  await service.stop();
});

it('Chromium presents the imported key to the mTLS face and the portal knows the admin', async () => {
  // No ignoreHTTPSErrors: the portal's certificate must verify against the CA trusted in NSS.
  const context = await keyed.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const response = await page.goto(`${service.mtlsOrigin}/api/v1/check-auth/validuser/admin`);
  expect(response?.status()).toBe(200);
  expect(JSON.parse(await page.innerText('body'))).toMatchObject({
    type: 'mtls',
    userid: 'Eagle9',
  });

  await page.goto(`${service.mtlsOrigin}/app/admin/`, { waitUntil: 'networkidle' });
  expect(page.url()).toBe(`${service.mtlsOrigin}/app/admin/`);
  await keepScreenshot(page, 'admin-landing-nss-key');
  await context.close();
});
