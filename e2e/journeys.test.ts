import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/api.js';
import { keepScreenshot, launchBrowser, PHONE } from './support/browser.js';
import { allowCertificateSelection, browserWithKey } from './support/nss.js';
import { startService, type Service } from './support/service.js';

// The two journeys (first admin, invited member) in a real browser (a 360 px phone) against the
// real service over TLS, from the link a person is given to their home page on the mTLS face with
// the key the browser downloaded. Screenshots of every screen are kept in test-results/screenshots.

const run = promisify(execFile);
let service: Service;
let browser: Browser;
let downloads: string;
let undoPolicy: () => Promise<void>;

beforeAll(async () => {
  service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '1000' });
  browser = await launchBrowser();
  downloads = await mkdtemp(path.join(os.tmpdir(), 'portal-downloads-'));
  undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
});

afterAll(async () => {
  await browser.close();
  await undoPolicy();
  await service.stop();
  await rm(downloads, { recursive: true, force: true });
});

/** Presses "Download your key", keeps the file, and checks it opens with the callsign. */
async function downloadKey(page: Page, callsign: string): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download your key' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${callsign}.pfx`);
  const file = path.join(downloads, `${callsign}.pfx`);
  await download.saveAs(file);
  const { stdout } = await run('openssl', [
    'pkcs12',
    '-in',
    file,
    '-passin',
    `pass:${callsign}`,
    '-nokeys',
    '-clcerts',
  ]);
  expect(stdout).toContain(`CN = ${callsign}`);
  return file;
}

/** A browser holding the key, as after installing it, opening the mTLS face. */
async function openWithKey(
  pfxFile: string,
  callsign: string,
): Promise<{ page: Page; close(): Promise<void> }> {
  const keyed = await browserWithKey(service.rootCaFile, { pfxFile, password: callsign });
  const context = await keyed.browser.newContext(PHONE);
  const page = await context.newPage();
  await page.goto(`${service.mtlsOrigin}/`);
  return { page, close: () => keyed.close() };
}

describe('journeys in the browser', () => {
  /** The first admin's key, as the approving admin uses it on their own device. */
  let adminKey = { pfxFile: '', password: 'Eagle3' };

  it('first admin: the login link, a callsign, the key, then the admin area', async () => {
    const context = await browser.newContext({
      ...PHONE,
      ignoreHTTPSErrors: true,
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await page.goto(service.adminLink);
    // A valid code in the link is checked and submitted by itself.
    await page.waitForURL('**/login/callsign');
    await keepScreenshot(page, 'journey-admin-1-callsign');
    await page.getByLabel('Callsign').fill('Eagle3');
    await page.getByRole('button', { name: 'Save callsign' }).click();
    await page.waitForURL('**/login/createmtls');
    await page.getByRole('button', { name: 'Download your key' }).waitFor();
    await keepScreenshot(page, 'journey-admin-2-key-page');
    const pfx = await downloadKey(page, 'Eagle3');
    adminKey = { pfxFile: pfx, password: 'Eagle3' };
    await context.close();

    const admin = await openWithKey(pfx, 'Eagle3');
    // The guard lets an admin's key into the admin area (its pages are issue 6).
    await admin.page.waitForURL('**/app/admin**');
    await expect.poll(() => admin.page.locator('main h1').innerText()).toBe('Administration');
    await keepScreenshot(admin.page, 'journey-admin-3-admin-home');
    await admin.close();
  });

  it('member: the invite link, a callsign, the wait, approval, the key, then home', async () => {
    const created = await call(service, 'POST', '/api/v1/enrollment/invitecode/create', {
      key: adminKey,
    });
    const invite = (created.json() as { invite_code: string }).invite_code;

    const context = await browser.newContext({
      ...PHONE,
      ignoreHTTPSErrors: true,
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await page.goto(`${service.origin}/login?code=${invite.toLowerCase()}`);
    await page.waitForURL('**/login/callsign');
    await page.getByLabel('Callsign').fill('Ranger3');
    await page.getByRole('button', { name: 'Save callsign' }).click();
    await page.waitForURL('**/login/enrollment');
    await page.getByRole('button', { name: 'Copy approval link' }).waitFor();
    await page.waitForFunction(() => localStorage.getItem('approveCode') !== null);
    await keepScreenshot(page, 'journey-member-1-waiting');
    const approvalCode = await page.evaluate(() => localStorage.getItem('approveCode'));
    expect(approvalCode).toMatch(/^[A-Z0-9]{8}$/);
    await expect.poll(() => page.locator('main').innerText()).toContain(approvalCode ?? '');

    // The member copies the approval link; the admin opens it on their own device, with their
    // key, finds the dialog filled in, and approves.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: service.origin,
    });
    await page.getByRole('button', { name: 'Copy approval link' }).click();
    await page.getByRole('button', { name: 'Link copied' }).waitFor();
    const approvalLink = await page.evaluate(() => navigator.clipboard.readText());
    const admin = await openWithKey(adminKey.pfxFile, adminKey.password);
    await admin.page.goto(approvalLink);
    const dialog = admin.page.getByRole('dialog', { name: 'Approval of Ranger3' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Approval code').inputValue()).toBe(approvalCode);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByText('User approved.').waitFor();
    await keepScreenshot(admin.page, 'journey-member-approved-by-admin');
    await admin.close();
    // The page polls every 5 seconds and moves on by itself once approved.
    await page.waitForURL('**/login/createmtls', { timeout: 20_000 });
    const pfx = await downloadKey(page, 'Ranger3');
    // A shared phone: the member signs out, and the next person finds no session to use.
    await page.getByRole('button', { name: 'Sign out on this device' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await page.goto(`${service.origin}/login/createmtls`);
    await page.waitForURL('**/login');
    await context.close();

    const home = await openWithKey(pfx, 'Ranger3');
    await home.page.waitForURL('**/app/users/Ranger3');
    await expect.poll(() => home.page.locator('main').innerText()).toContain('Ranger3');
    await keepScreenshot(home.page, 'journey-member-2-home');
    await home.close();
  });
});
