import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember } from './support/api.js';
import {
  DESKTOP,
  keepScreenshot,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser.js';
import type { FirstAdminBrowser } from './support/first-admin-browser.js';
import { browserWithKey, openWithKey, type KeyedBrowser } from './support/nss.js';
import type { Portal } from './support/service.js';
import { SHARED_ADMIN, sharedAdminBrowser, sharedPortal } from './support/shared-portal.js';

// The TAK pages in a real browser on the mTLS face, signed in with a member's and an
// admin's key imported into Chromium's NSS store: every guide step and its neighbours, the
// settings download for each choice (checked offline by the shared acceptance script), and an
// accessibility check on a 360 px phone and on a desktop.

const CHECK_SCRIPT = fileURLToPath(
  new URL('../../shared/tools/check-tak-package.sh', import.meta.url),
);
const TAK = '/app/services/tak';

const service: Portal = sharedPortal();
let workDir: string;
let member: KeyedBrowser;
let sharedAdmin: FirstAdminBrowser;
let admin: KeyedBrowser;

beforeAll(async () => {
  if (!existsSync(CHECK_SCRIPT)) {
    throw new Error(`${CHECK_SCRIPT} is missing: clone the repository next to the shared/ folder`);
  }
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-tak-'));
  sharedAdmin = await sharedAdminBrowser();
  admin = sharedAdmin.keyed;
  const memberKey = { pfxFile: path.join(workDir, 'Ranger5.pfx'), password: 'Ranger5' };
  await writeFile(memberKey.pfxFile, await approvedMember(service, sharedAdmin.key, 'Ranger5'));
  member = await browserWithKey(service.rootCaFile, memberKey);
});

afterAll(async () => {
  await member.close();
  await sharedAdmin.close();
  await rm(workDir, { recursive: true, force: true });
});

function open(
  keyed: KeyedBrowser,
  url: string,
  device: BrowserContextOptions = PHONE,
  extra: BrowserContextOptions = {},
): Promise<Page> {
  return openWithKey(keyed, `${service.mtlsOrigin}${url}`, { ...device, ...extra });
}

function heading(page: Page): Promise<string> {
  return page.locator('main h1').innerText();
}

/** Each guide by its name: its steps, in order. */
const GUIDES = [
  ['quickstart', ['android1', 'android2', 'android3', 'android4', 'android5']],
  ['quickstart', ['ios1', 'ios2', 'ios3', 'ios4', 'ios5']],
  ['quickstart', ['win1', 'win2', 'win3', 'win4']],
  ['usage', ['android1', 'android2', 'android3']],
  ['usage', ['ios1']],
  ['usage', ['win1', 'win2', 'win3', 'win4']],
] as const;
const WITH_DOWNLOAD = new Set(['quickstart/android2', 'quickstart/ios2', 'quickstart/win2']);

describe('TAK guides', () => {
  it('the member home has the TAK card leading to quickstart and usage', async () => {
    const page = await open(member, '/app/users/Ranger5');
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'TAK' }) });
    await card.getByRole('link', { name: 'Quickstart' }).waitFor();
    await keepScreenshot(page, 'tak-member-home-phone');
    await card.getByRole('link', { name: 'Quickstart' }).click();
    await page.waitForURL(`**${TAK}/quickstart`);
    await expect.poll(() => heading(page)).toBe('TAK quickstart');
    await keepScreenshot(page, 'tak-quickstart-list-phone');
    // The list's cards lead to the first step of each guide.
    for (const [app, first] of [
      ['ATAK-CIV (Android)', 'android1'],
      ['iTAK (iOS)', 'ios1'],
      ['WinTAK (Windows)', 'win1'],
    ] as const) {
      const href = await page
        .getByRole('link', { name: `Start the ${app} quickstart` })
        .getAttribute('href');
      expect(href).toBe(`${TAK}/quickstart/${first}`);
    }
    await page.goBack();
    await page.waitForURL('**/app/users/Ranger5');
    await page.getByRole('link', { name: 'How to use' }).click();
    await page.waitForURL(`**${TAK}/usage`);
    await expect.poll(() => heading(page)).toBe('Using TAK');
    await page.context().close();
  });

  it.each(GUIDES)(
    '%s %j: each step shows its place, and forward and back reach its neighbours',
    async (section, steps) => {
      const list = `${TAK}/${section}`;
      const page = await open(admin, `${list}/${steps[0]}`, DESKTOP);
      const stepNav = page.getByRole('navigation', { name: 'Guide steps' });
      // Forward from the first step to the last, then to the list.
      for (const [index, step] of steps.entries()) {
        expect(page.url()).toBe(`${service.mtlsOrigin}${list}/${step}`);
        await expect
          .poll(() => page.getByText(`Step ${index + 1} of ${steps.length}`).count())
          .toBe(1);
        expect(await heading(page)).not.toBe('');
        const download = page.getByRole('button', { name: 'Download TAK settings' });
        expect(await download.count()).toBe(WITH_DOWNLOAD.has(`${section}/${step}`) ? 1 : 0);
        expect(
          await page
            .getByRole('link', {
              name: `Back to the ${section === 'usage' ? 'usage overview' : 'quickstart list'}`,
            })
            .getAttribute('href'),
        ).toBe(list);
        const forward = stepNav.getByRole('link').last();
        const isLast = index === steps.length - 1;
        const label = isLast ? (section === 'usage' ? 'Finish' : 'Done') : 'Next';
        expect((await forward.innerText()).trim()).toContain(label);
        await forward.click();
        await page.waitForURL(isLast ? `**${list}` : `**${list}/${steps[index + 1]}`);
      }
      // Back from the last step to the first, then to the list.
      await page.goto(`${service.mtlsOrigin}${list}/${steps[steps.length - 1]}`);
      for (let index = steps.length - 1; index >= 0; index -= 1) {
        await expect
          .poll(() => page.getByText(`Step ${index + 1} of ${steps.length}`).count())
          .toBe(1);
        await stepNav.getByRole('link', { name: /Back/ }).click();
        await page.waitForURL(index === 0 ? `**${list}` : `**${list}/${steps[index - 1]}`);
      }
      await page.context().close();
    },
  );

  it('the usage overview scrolls down 60 px on load and leads to the three guides', async () => {
    const page = await open(member, `${TAK}/usage`);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(60);
    await page
      .getByRole('link', { name: /^Guide:/ })
      .first()
      .waitFor();
    const links = await page
      .getByRole('link', { name: /^Guide:/ })
      .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    expect(links.sort()).toEqual(
      [`${TAK}/usage/android1`, `${TAK}/usage/ios1`, `${TAK}/usage/win1`].sort(),
    );
    await keepScreenshot(page, 'tak-usage-overview-phone');
    await page.context().close();
  });

  it('the login page loads none of the guides; a guide page fetches their text on opening', async () => {
    const context = await member.browser.newContext(PHONE);
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(`${service.origin}/login`);
    await expect.poll(() => heading(page)).not.toBe('');
    const guideFiles = (paths: string[]) =>
      paths.filter((pathname) =>
        /tak-guides|guide-step-page|quickstart-list|usage-overview/.test(pathname),
      );
    expect(guideFiles(requested)).toEqual([]);

    await page.goto(`${service.mtlsOrigin}${TAK}/usage/ios1`);
    await expect.poll(() => heading(page)).toBe('iTAK in use');
    expect(guideFiles(requested)).toEqual(
      expect.arrayContaining([
        '/locales/en/tak-guides.json',
        expect.stringMatching(/guide-step-page/),
      ]),
    );
    await context.close();
  });

  it('speaks Finnish when Finnish is chosen', async () => {
    const context = await member.browser.newContext(PHONE);
    await context.addInitScript(() => {
      localStorage.setItem('i18nextLng', 'fi');
    });
    const page = await context.newPage();
    await page.goto(`${service.mtlsOrigin}${TAK}/quickstart/android3`);
    await expect.poll(() => page.getByText('Vaihe 3/5').count()).toBe(1);
    expect(await heading(page)).toBe('Tuo asetukset');
    await keepScreenshot(page, 'tak-quickstart-android3-fi-phone');
    await context.close();
  });
});

describe('TAK settings download', () => {
  it.each([
    ['iOS (iTAK)', '_itak.zip'],
    ['Android or Windows (ATAK, WinTAK)', '_atak.zip'],
    ['TAK Tracker', '_tak-tracker.zip'],
  ])('%s: the saved zip passes check-tak-package.sh', async (choice, suffix) => {
    const page = await open(member, '/app/users/Ranger5', PHONE, { acceptDownloads: true });
    await page.getByRole('button', { name: 'Download TAK settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download TAK settings' });
    // Off an iOS device the default is the Android and Windows package.
    expect(await dialog.getByRole('radio', { name: /Android or Windows/ }).isChecked()).toBe(true);
    await dialog.getByRole('radio', { name: new RegExp(choice.replace(/[()]/g, '\\$&')) }).check();
    await keepScreenshot(page, `tak-download-dialog${suffix.replace('.zip', '')}-phone`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download' }).click(),
    ]);
    const filename = download.suggestedFilename();
    expect(filename).toBe(`Ranger5_portal${suffix}`);
    const file = path.join(workDir, filename);
    await download.saveAs(file);
    const success = page.getByRole('dialog', { name: 'Settings downloaded' });
    await expect.poll(() => success.innerText()).toContain(filename);
    await keepScreenshot(page, `tak-download-done${suffix.replace('.zip', '')}-phone`);

    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        'bash',
        [CHECK_SCRIPT, file, 'Ranger5', 'Ranger5', 'public', 'tak.portal.localhost'],
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr });
        },
      );
    });
    expect(result.code, result.output).toBe(0);
    await page.context().close();
  });

  it('an admin gets the download from the TAK card of the admin home too', async () => {
    const page = await open(admin, '/app/admin', DESKTOP, { acceptDownloads: true });
    await page.getByRole('button', { name: 'Download TAK settings' }).waitFor();
    await keepScreenshot(page, 'tak-admin-home-desktop');
    await page.getByRole('button', { name: 'Download TAK settings' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('dialog').getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${SHARED_ADMIN}_portal_atak.zip`);
    await page.context().close();
  });
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('on a %s', (name, device) => {
  it('the quickstart list and a guide page look right and pass the accessibility check', async () => {
    for (const [url, shot] of [
      [`${TAK}/quickstart`, 'tak-quickstart-list'],
      // quickstart/android1 is swept, in both languages, by tak-enroll.test.ts.
      [`${TAK}/usage/win2`, 'tak-usage-win2'],
    ] as const) {
      // axe is injected as an inline script, so this context bypasses the CSP.
      const page = await open(member, url, device, { bypassCSP: true });
      await expect.poll(() => heading(page)).not.toBe('');
      await keepScreenshot(page, `${shot}-${name}`);
      expect(await seriousAccessibilityViolations(page), url).toEqual([]);
      await page.context().close();
    }
  });
});
