import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/api.js';
import { DESKTOP, keepScreenshot, launchBrowser, PHONE } from './support/browser.js';
import { qrCodesIn } from './support/qr.js';
import type { FirstAdminBrowser } from './support/first-admin-browser.js';
import type { KeyedBrowser } from './support/nss.js';
import type { Portal } from './support/service.js';
import { sharedAdminBrowser, sharedPortal } from './support/shared-portal.js';

// Bulk onboarding as an admin and a member do it (issue 18): ten callsigns from a CSV file, the
// slips printed to PDF by Chromium and read back with Poppler (text) and ZBar (the QR codes), a
// member who scans a slip and lands approved on the key page, and the batch page that sees it.

const run = promisify(execFile);
const CALLSIGNS = Array.from({ length: 10 }, (_, index) => `Recruit${String(index + 1)}`);
const service: Portal = sharedPortal();
let admin: FirstAdminBrowser;
let keyed: KeyedBrowser;
let memberBrowser: Browser;
let workDir: string;
let adminKey: { pfxFile: string; password: string };

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bulk-e2e-'));
  admin = await sharedAdminBrowser();
  ({ keyed, key: adminKey } = admin);
  memberBrowser = await launchBrowser();
});

afterAll(async () => {
  await memberBrowser.close();
  await admin.close();
  await rm(workDir, { recursive: true, force: true });
});

interface Slip {
  callsign: string;
  invite_code: string;
  link: string;
  state: string;
}

async function batchOf(batchId: string): Promise<Slip[]> {
  const answer = await call(service, 'GET', `/api/v1/enrollment/bulk/${batchId}`, {
    key: adminKey,
  });
  expect(answer.status).toBe(200);
  return (answer.json() as { slips: Slip[] }).slips;
}

/** The text of one page of the PDF, as Poppler extracts it. */
async function pageText(pdf: string, page: number): Promise<string> {
  const { stdout } = await run('pdftotext', ['-f', String(page), '-l', String(page), pdf, '-']);
  return stdout;
}

/** A slip on the printed sheet (slips-print.css: 2 across, 4 down on A4, no page margin), in mm. */
const SLIP_MM = { width: 105, height: 74.25 };

/**
 * The QR codes on one sheet of the PDF, read one slip at a time as a member's phone reads a slip
 * cut from it: each of the 8 slips rendered at 150 dpi as a printer would and decoded by ZBar.
 * ZBar given the whole sheet at once misses about one code in a hundred that it reads on the slip
 * alone.
 */
async function pageQrCodes(pdf: string, page: number): Promise<string[]> {
  const dpi = 150;
  const toPixels = (mm: number) => String(Math.round((mm / 25.4) * dpi));
  const codes: string[] = [];
  for (let slip = 0; slip < 8; slip += 1) {
    const prefix = path.join(workDir, `slip-${String(page)}-${String(slip)}`);
    const left = (slip % 2) * SLIP_MM.width;
    const top = Math.floor(slip / 2) * SLIP_MM.height;
    await run('pdftoppm', [
      '-r',
      String(dpi),
      '-png',
      '-singlefile',
      '-f',
      String(page),
      '-l',
      String(page),
      '-x',
      toPixels(left),
      '-y',
      toPixels(top),
      '-W',
      toPixels(SLIP_MM.width),
      '-H',
      toPixels(SLIP_MM.height),
      pdf,
      prefix,
    ]);
    codes.push(...(await qrCodesIn(`${prefix}.png`)));
  }
  return codes;
}

describe('bulk slips in the browser', () => {
  let batchId = '';
  /** The links the printed QR codes carry, as a phone's camera reads them. */
  let scanned: string[] = [];

  it('an admin bulk-creates 10 members from a CSV file and prints their slips to a 2-page PDF', async () => {
    const csv = path.join(workDir, 'unit.csv');
    await writeFile(
      csv,
      [
        'name,callsign,unit',
        ...CALLSIGNS.map(
          (callsign, index) => `"Recruit, No. ${String(index + 1)}",${callsign},2nd`,
        ),
        '',
      ].join('\r\n'),
    );
    const context = await keyed.browser.newContext(DESKTOP);
    const adminPage = await context.newPage();
    await adminPage.goto(`${service.mtlsOrigin}/app/admin/user-management/code-list`);
    await adminPage.getByRole('link', { name: 'Bulk slips for a unit' }).click();
    await adminPage.waitForURL('**/user-management/bulk');
    await adminPage.getByLabel('Or read them from a file').setInputFiles(csv);
    const main = adminPage.locator('main');
    await main.getByText('10 callsigns, 0 cannot be used.').waitFor();
    expect(await main.getByRole('list', { name: 'Preview' }).locator('li').allInnerTexts()).toEqual(
      CALLSIGNS,
    );
    await main.getByLabel('Team').selectOption('Dark Blue');
    await main.getByLabel('Role').selectOption('Medic');
    await keepScreenshot(adminPage, 'bulk-1-preview');
    await main.getByRole('button', { name: 'Create 10 slips' }).click();
    await adminPage.waitForURL(/\/user-management\/bulk\/[^/]+$/);
    batchId = new URL(adminPage.url()).pathname.split('/').pop() ?? '';
    const slips = await batchOf(batchId);
    expect(slips.map((slip) => slip.callsign)).toEqual(CALLSIGNS);
    expect(slips.every((slip) => slip.state === 'issued')).toBe(true);
    await main.getByText('10 slips made').waitFor();

    await main.getByRole('link', { name: 'Print the slips' }).click();
    await adminPage.waitForURL('**/print');
    await adminPage.getByText('10 unused slips on 2 sheets.').waitFor();
    await adminPage.locator('.slip').nth(9).waitFor();
    const pdf = path.join(workDir, 'slips.pdf');
    await adminPage.pdf({ path: pdf, preferCSSPageSize: true, printBackground: true });
    await keepScreenshot(adminPage, 'bulk-2-print-view');

    const { stdout: info } = await run('pdfinfo', [pdf]);
    expect(info).toMatch(/^Pages:\s+2$/m);
    expect(info).toMatch(/^Page size:\s+[\d.]+ x [\d.]+ pts \(A4\)$/m);
    const sheets = [await pageText(pdf, 1), await pageText(pdf, 2)];
    const onSheet = (text: string) =>
      CALLSIGNS.filter((callsign) => new RegExp(`^${callsign}$`, 'm').test(text));
    expect(onSheet(sheets[0]!)).toEqual(CALLSIGNS.slice(0, 8));
    expect(onSheet(sheets[1]!)).toEqual(CALLSIGNS.slice(8));
    // Nothing of the screen around the sheets is printed.
    expect(sheets.join('')).not.toContain('Print the slips');
    for (const slip of slips) {
      expect(sheets.join('')).toContain(slip.invite_code);
    }
    // Every QR code on paper carries its slip's link, eight on the first sheet, two on the next.
    const printed = [await pageQrCodes(pdf, 1), await pageQrCodes(pdf, 2)];
    expect(printed.map((codes) => codes.length)).toEqual([8, 2]);
    expect(printed.flat().sort()).toEqual(slips.map((slip) => slip.link).sort());
    scanned = printed.flat();
    await context.close();
  });

  it('a member scans a slip and lands approved on the key page; the batch page shows "key"', async () => {
    const slip = (await batchOf(batchId)).find((entry) => entry.callsign === 'Recruit3');
    const link = scanned.find((scan) => scan.endsWith(`code=${slip?.invite_code ?? '-'}`));
    expect(link).toBeDefined();
    const context = await memberBrowser.newContext({
      ...PHONE,
      ignoreHTTPSErrors: true,
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await page.goto(link!);
    await page.waitForURL('**/login/callsign');
    expect(await page.getByLabel('Callsign').inputValue()).toBe('Recruit3');
    await keepScreenshot(page, 'bulk-3-member-callsign');
    await page.getByRole('button', { name: 'Save callsign' }).click();
    // No waiting room: the slip approves at once, and nobody else did anything.
    await page.waitForURL('**/login/createmtls');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download your key' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Recruit3.pfx');
    await keepScreenshot(page, 'bulk-4-member-key-page');
    await context.close();

    const adminContext = await keyed.browser.newContext(PHONE);
    const batchPage = await adminContext.newPage();
    await batchPage.goto(`${service.mtlsOrigin}/app/admin/user-management/bulk/${batchId}`);
    const row = batchPage.getByRole('row', { name: /^Recruit3 / });
    await expect.poll(() => row.locator('td').last().innerText(), { timeout: 15_000 }).toBe('key');
    await keepScreenshot(batchPage, 'bulk-5-batch-page');
    const others = (await batchOf(batchId)).filter((entry) => entry.callsign !== 'Recruit3');
    expect(new Set(others.map((entry) => entry.state))).toEqual(new Set(['issued']));
    await adminContext.close();
  });

  it('the batch page fits a 360 px phone in English and Finnish', async () => {
    for (const language of ['en', 'fi']) {
      const context = await keyed.browser.newContext(PHONE);
      await context.addInitScript((lng: string) => {
        localStorage.setItem('i18nextLng', lng);
      }, language);
      const page = await context.newPage();
      await page.goto(`${service.mtlsOrigin}/app/admin/user-management/bulk/${batchId}`);
      await page.getByRole('row', { name: /^Recruit10 / }).waitFor();
      await keepScreenshot(page, `bulk-6-batch-page-${language}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), language).toBe(360);
      await context.close();
    }
  });

  it('safe defaults on screen: the code list, the options form, skipping rows, the void button', async () => {
    for (const [device, options] of [
      ['phone', PHONE],
      ['laptop', DESKTOP],
    ] as const) {
      for (const language of ['en', 'fi'] as const) {
        const context = await keyed.browser.newContext(options);
        await context.addInitScript((lng: string) => {
          localStorage.setItem('i18nextLng', lng);
        }, language);
        const page = await context.newPage();
        const main = page.locator('main');
        await page.goto(`${service.mtlsOrigin}/app/admin/user-management/code-list`);
        await main
          .getByText(language === 'en' ? /works for 7 days/ : /voimassa 7 päivää/)
          .waitFor();
        await keepScreenshot(page, `safe-defaults-code-list-${device}-${language}`);
        await main
          .getByRole('button', {
            name: language === 'en' ? 'Create with options' : 'Luo asetuksin',
          })
          .click();
        const dialog = page.getByRole('dialog');
        expect(await dialog.getByRole('spinbutton').inputValue()).toBe('25');
        await keepScreenshot(page, `safe-defaults-options-${device}-${language}`);
        await page.keyboard.press('Escape');

        await page.goto(`${service.mtlsOrigin}/app/admin/user-management/bulk`);
        await main.getByRole('textbox').first().fill('Fresh1\nbad-name\nRecruit1\nFresh2');
        const skip = main.getByRole('checkbox');
        await skip.waitFor();
        const create = main.getByRole('button', {
          name: language === 'en' ? 'Create 2 slips' : 'Luo 2 lappua',
        });
        expect(await create.isDisabled()).toBe(true);
        await skip.check();
        expect(await create.isDisabled()).toBe(false);
        await keepScreenshot(page, `safe-defaults-bulk-skip-${device}-${language}`);

        await page.goto(`${service.mtlsOrigin}/app/admin/user-management/bulk/${batchId}`);
        const voidButton = main.getByRole('button', {
          name: language === 'en' ? 'Void unused slips' : 'Mitätöi käyttämättömät laput',
        });
        // Red words on white, not a solid red block beside Print.
        const colours = await voidButton.evaluate((node) => {
          const style = getComputedStyle(node);
          return { background: style.backgroundColor, color: style.color };
        });
        expect(colours.background).toBe('rgb(255, 255, 255)');
        expect(colours.color).not.toBe('rgb(255, 255, 255)');
        await keepScreenshot(page, `safe-defaults-batch-${device}-${language}`);
        await context.close();
      }
    }
  });
});
