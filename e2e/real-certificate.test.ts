import { afterAll, beforeAll, expect, it } from 'vitest';
import { keepScreenshot } from './support/browser.js';
import type { FirstAdminBrowser } from './support/first-admin-browser.js';
import type { KeyedBrowser } from './support/nss.js';
import type { Portal } from './support/service.js';
import { SHARED_ADMIN, sharedAdminBrowser, sharedPortal } from './support/shared-portal.js';

// The real thing, once: the member's .pfx imported into Chromium's own certificate store (NSS,
// as on a Linux desktop), the portal's CA trusted there, and Chromium picking the certificate by
// policy — no TLS done by the test tool. Needs root for the managed policy (as CI runs).

const service: Portal = sharedPortal();
let admin: FirstAdminBrowser;
let keyed: KeyedBrowser;

beforeAll(async () => {
  admin = await sharedAdminBrowser();
  keyed = admin.keyed;
});

afterAll(async () => {
  await admin.close();
});

it('Chromium presents the imported key to the mTLS face and the portal knows the admin', async () => {
  // No ignoreHTTPSErrors: the portal's certificate must verify against the CA trusted in NSS.
  const context = await keyed.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const response = await page.goto(`${service.mtlsOrigin}/api/v1/check-auth/validuser/admin`);
  expect(response?.status()).toBe(200);
  expect(JSON.parse(await page.innerText('body'))).toMatchObject({
    type: 'mtls',
    userid: SHARED_ADMIN,
  });

  await page.goto(`${service.mtlsOrigin}/app/admin/`);
  await page.locator('main').getByText(`Welcome, ${SHARED_ADMIN}`, { exact: true }).waitFor();
  expect(page.url()).toBe(`${service.mtlsOrigin}/app/admin/`);
  await keepScreenshot(page, 'admin-landing-nss-key');
  await context.close();
});
