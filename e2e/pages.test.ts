import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  DESKTOP,
  keepScreenshot,
  launchBrowser,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser.js';
import type { Portal } from './support/service.js';
import { sharedPortal } from './support/shared-portal.js';

// The public pages in a real browser against the real service over TLS: they render under the
// strict CSP, pass an accessibility check, and the mTLS face sends a visitor without a key to
// the explanation page.

const service: Portal = sharedPortal();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('on a %s', (name, device) => {
  it('shows the login page with the deployment name, within the CSP, accessibly', async () => {
    const context = await browser.newContext({
      ...device,
      ignoreHTTPSErrors: true,
      bypassCSP: false,
    });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
        cspErrors.push(message.text());
      }
    });
    await page.goto(`${service.origin}/login`);
    // One brand: the deployment's name from its branding, as on the login page itself.
    await expect.poll(() => page.locator('header').innerText()).toBe('Callsign Portal');
    await keepScreenshot(page, `login-${name}`);
    // A dialog locks scrolling with a <style> element: the page's nonce must let it in.
    await page.getByRole('button', { name: 'Privacy policy' }).click();
    await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
    await keepScreenshot(page, `login-privacy-${name}`);
    expect(cspErrors).toEqual([]);
    await context.close();

    const audit = await browser.newContext({ ...device, ignoreHTTPSErrors: true, bypassCSP: true });
    const auditPage = await audit.newPage();
    await auditPage.goto(`${service.origin}/login`);
    await expect.poll(() => auditPage.locator('header').innerText()).toBe('Callsign Portal');
    await auditPage.getByRole('button', { name: 'Privacy policy' }).waitFor();
    expect(await seriousAccessibilityViolations(auditPage)).toEqual([]);
    await audit.close();
  });
});

it('sends a visitor without a key from the mTLS face to the explanation of that case', async () => {
  const context = await browser.newContext({ ...PHONE, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${service.mtlsOrigin}/app/admin/`);
  await page.waitForURL(`${service.origin}/error?code=mtls_fail&reason=no_key`);
  expect(page.url()).toBe(`${service.origin}/error?code=mtls_fail&reason=no_key`);
  await expect.poll(() => page.locator('main h1').innerText()).toBe('No key on this device');
  await keepScreenshot(page, 'error-mtls-fail-phone');
  await context.close();
});
