import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, call, firstAdmin } from './support/api.js';
import { DESKTOP, keepScreenshot, launchBrowser, PHONE } from './support/browser.js';
import { checkPage } from './support/checks.js';
import { allowCertificateSelection, browserWithKey, type KeyedBrowser } from './support/nss.js';
import { startService, type Service } from './support/service.js';

// Keys over their life in Chromium, with real keys in Chromium's own NSS store: a member revokes
// one of their two keys on "Your keys" (the revoked key is refused, the other still opens the
// portal), the renewal banner of a key that ends in 10 days (the portal issues 10-day keys
// here), and an admin's renewal code used in a fresh browser to get a new key.
// Screenshots go to test-results/screenshots (keys-*), on a phone in English and Finnish.

const run = promisify(execFile);
const ADMIN = 'Chief7';
const MEMBER = 'Scout7';
const VALIDITY_DAYS = 10;
let service: Service;
let workDir: string;
let undoPolicy: () => Promise<void>;
let adminKey: { pfxFile: string; password: string };
/** The member's two keys: the one in their browser, and one of another device. */
let browserKey: { pfxFile: string; password: string };
let otherKey: { pfxFile: string; password: string };
let member: KeyedBrowser;

async function keyFile(name: string, pfx: Buffer): Promise<string> {
  const file = path.join(workDir, `${name}.pfx`);
  await writeFile(file, pfx);
  return file;
}

beforeAll(async () => {
  service = await startService({
    PORTAL_CERT_VALIDITY_DAYS: String(VALIDITY_DAYS),
    PORTAL_RATE_LIMIT_FAILURES: '1000',
  });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-keys-e2e-'));
  adminKey = {
    pfxFile: await keyFile(ADMIN, (await firstAdmin(service, ADMIN)).pfx),
    password: ADMIN,
  };
  browserKey = {
    pfxFile: await keyFile(MEMBER, await approvedMember(service, adminKey, MEMBER)),
    password: MEMBER,
  };
  // A second key, downloaded with the first on the mTLS face (as for a laptop).
  const second = await call(service, 'GET', `/api/v1/enduserpfx/${MEMBER}`, { key: browserKey });
  expect(second.status).toBe(200);
  otherKey = { pfxFile: await keyFile(`${MEMBER}-laptop`, second.body), password: MEMBER };
  // And the TAK settings packages, with their own keys (what the TAK card's banner counts).
  const packages = await call(service, 'GET', '/api/v1/instructions/user', { key: browserKey });
  expect(packages.status).toBe(200);
  undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
  member = await browserWithKey(service.rootCaFile, browserKey);
});

afterAll(async () => {
  await member.close();
  await undoPolicy();
  await service.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** A page of the member's browser; CSP bypassed only for the accessibility check. */
async function memberPage(
  urlPath: string,
  options: { device?: BrowserContextOptions; language?: 'en' | 'fi' } = {},
): Promise<{ page: Page; context: BrowserContext }> {
  const context = await member.browser.newContext({
    ...(options.device ?? PHONE),
    bypassCSP: true,
  });
  const language = options.language ?? 'en';
  await context.addInitScript((lng) => {
    localStorage.setItem('i18nextLng', lng);
  }, language);
  const page = await context.newPage();
  await page.goto(`${service.mtlsOrigin}${urlPath}`);
  return { page, context };
}

const VALID = '/api/v1/check-auth/validuser';

describe('keys over their life in the browser', () => {
  it('a member revokes one of two keys: that key is refused, the other still opens the portal', async () => {
    expect((await call(service, 'GET', VALID, { key: otherKey })).status).toBe(200);
    const { page, context } = await memberPage('/app/keys');
    const main = page.locator('main');
    await main.getByRole('heading', { name: 'Your keys', level: 1 }).waitFor();
    // The live browser keys; the revoked and expired ones are listed apart.
    const rows = main.locator('li', { hasText: 'Browser key, downloaded' }).filter({
      hasText: 'Works until',
    });
    await expect.poll(() => rows.count()).toBe(2);
    const current = rows.filter({ hasText: 'This device' });
    const other = rows.filter({ hasNotText: 'This device' });
    expect(await current.count()).toBe(1);
    await keepScreenshot(page, 'keys-list-phone');
    await checkPage(page, 360);

    // The key in use asks twice; keeping it at the second question revokes nothing.
    await current.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).waitFor();
    await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    const second = page.getByRole('dialog', { name: 'This is the key you are using now' });
    await second.waitFor();
    await keepScreenshot(page, 'keys-revoke-current-phone');
    await second.getByRole('button', { name: 'Keep the key' }).click();
    await second.waitFor({ state: 'detached' });

    // The other device's key: one confirmation that says what stops working.
    await other.getByRole('button', { name: /^Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await expect.poll(() => dialog.innerText()).toContain('can no longer open the portal');
    await keepScreenshot(page, 'keys-revoke-confirm-phone');
    await dialog.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => main.getByRole('status').innerText()).toContain('was revoked');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await main.getByText('1 revoked or expired key').count()).toBe(1);
    await keepScreenshot(page, 'keys-after-revoke-phone');

    // Over TLS with the real certificates: the revoked key is refused, the one in use is not.
    expect((await call(service, 'GET', VALID, { key: otherKey })).status).toBe(403);
    expect((await call(service, 'GET', VALID, { key: browserKey })).status).toBe(200);
    await page.reload();
    await expect.poll(() => main.locator('li', { hasText: 'This device' }).count()).toBe(1);
    await context.close();
  });

  it(`the renewal banner on the home and the TAK card, for a key that ends in ${VALIDITY_DAYS} days`, async () => {
    const { page, context } = await memberPage(`/app/users/${MEMBER}`);
    const main = page.locator('main');
    const banner = main.getByRole('region', { name: 'Time to renew your key' }).first();
    await banner.waitFor();
    expect(await banner.innerText()).toContain(`stops working in ${VALIDITY_DAYS} days`);
    expect(await banner.getAttribute('data-renewal-stage')).toBe('14');
    const tak = main.getByRole('region', { name: 'Time to renew your key' }).nth(1);
    expect(await tak.innerText()).toContain('The key TAK connects with stops working');
    await keepScreenshot(page, 'keys-banner-home-phone');
    await checkPage(page, 360);

    await banner.getByRole('link', { name: 'Renew your key' }).click();
    await page.waitForURL('**/app/keys');
    await main.getByRole('button', { name: 'Download a new browser key (.pfx)' }).waitFor();
    await context.close();

    for (const [urlPath, name] of [
      [`/app/users/${MEMBER}`, 'home'],
      ['/app/keys', 'list'],
    ] as const) {
      const fi = await memberPage(urlPath, { language: 'fi' });
      await fi.page.locator('main section[data-renewal-stage]').first().waitFor();
      await keepScreenshot(fi.page, `keys-${name}-phone-fi`);
      await checkPage(fi.page, 360);
      await fi.context.close();
    }
    const desktop = await memberPage('/app/keys', { device: DESKTOP });
    await desktop.page.locator('main section[data-renewal-stage]').waitFor();
    await keepScreenshot(desktop.page, 'keys-list-desktop');
    await desktop.context.close();
  });

  it('an admin makes a renewal code; the member uses it in a fresh browser to get a new key', async () => {
    const admin = await browserWithKey(service.rootCaFile, adminKey);
    let code: string;
    try {
      const context = await admin.browser.newContext({ ...PHONE, bypassCSP: true });
      const page = await context.newPage();
      // The admin home names the CAs' end; no warning for a CA made today.
      await page.goto(`${service.mtlsOrigin}/app/admin/`);
      const ca = page.getByRole('region', { name: 'Certificate authority' });
      await expect.poll(() => ca.innerText()).toContain('Issuing CA');
      expect(await ca.getByRole('alert').count()).toBe(0);
      // Manage users › Expiring keys: the member (and the admin) whose keys end in 10 days.
      await page.goto(`${service.mtlsOrigin}/app/admin/manageusers`);
      await page.getByRole('link', { name: /^Expiring keys/ }).click();
      await page.waitForURL('**/user-management/expiring-keys');
      const expiring = page.locator('main li', { hasText: MEMBER });
      await expect.poll(() => expiring.innerText()).toContain(`Ends in ${VALIDITY_DAYS} days`);
      await keepScreenshot(page, 'keys-admin-expiring-phone');
      await checkPage(page, 360);
      // The member's page: its Keys section makes the renewal code.
      await page.goto(`${service.mtlsOrigin}/app/admin/people/${MEMBER}`);
      const section = page.locator('main').getByRole('region', { name: 'Keys' });
      await section.waitFor();
      // Its keys listed: before, the section knows of no working key and makes the code unasked
      // (seen so on a busy machine).
      await expect.poll(() => section.innerText()).not.toContain('Loading...');
      await section.getByRole('button', { name: 'Make a renewal code' }).click();
      // The member's key still works: the code revokes it, and the section asks first.
      const ask = section.getByRole('group', { name: 'Revoke their keys?' });
      expect(await ask.innerText()).toMatch(/their \d+ keys? stops? working/);
      await ask.getByRole('button', { name: /^Revoke \d+ keys? and make the code$/ }).click();
      const link = section.getByText(`${service.origin}/login?code=`);
      await link.waitFor();
      code = new URL(await link.innerText()).searchParams.get('code') ?? '';
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      await section
        .getByRole('img', { name: `QR code of the renewal link for ${MEMBER}` })
        .waitFor();
      await keepScreenshot(page, 'keys-admin-renewal-code-phone');
      await checkPage(page, 360);
      await context.close();
    } finally {
      await admin.close();
    }

    // A fresh browser with no key: the code typed on /login leads straight to the key page.
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({
        ...PHONE,
        ignoreHTTPSErrors: true,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      await page.goto(`${service.origin}/login`);
      await page.getByLabel('One-time code').fill(code.toLowerCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL('**/login/createmtls');
      await page.getByRole('button', { name: 'Download your key' }).waitFor();
      await keepScreenshot(page, 'keys-renewal-key-page-phone');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download your key' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${MEMBER}.pfx`);
      const file = path.join(workDir, `${MEMBER}-renewed.pfx`);
      await download.saveAs(file);
      const { stdout } = await run('openssl', [
        'pkcs12',
        '-in',
        file,
        '-passin',
        `pass:${MEMBER}`,
        '-nokeys',
        '-clcerts',
      ]);
      expect(stdout).toContain(`CN = ${MEMBER}`);
      const renewed = { pfxFile: file, password: MEMBER };
      const who = await call(service, 'GET', VALID, { key: renewed });
      expect(who.json()).toMatchObject({ type: 'mtls', userid: MEMBER });
      await context.close();
    } finally {
      await browser.close();
    }
    // Single use: the code is spent.
    const again = await call(service, 'POST', '/api/v1/token/code/exchange', { json: { code } });
    expect(again.status).toBe(403);
  });
});
