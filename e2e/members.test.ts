import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, call } from './support/api.js';
import { DESKTOP, keepScreenshot, PHONE } from './support/browser.js';
import { openKeyedPage, type KeyedBrowser } from './support/nss.js';
import { checkPage } from './support/checks.js';
import { firstAdminBrowser, type FirstAdminBrowser } from './support/first-admin-browser.js';
import { startService, type Service } from './support/service.js';

// The admin area for a real unit (issue 31, docs/api.md#the-members-table) in Chromium with the admin's real
// key: the navigation on every admin page with the count of people waiting, the members table
// that filters as the admin types, the member's own page whose promote and demote ask first and
// name what follows, and actions on yourself turned off with the reason. Screenshots (members-*)
// on a 360 px phone and a laptop, in English and Finnish.

const ADMIN = 'Chief9';
const MEMBERS = ['Alpha1', 'Alder2', 'Bravo3', 'Charlie4'];
const DEPUTY = 'Deputy5';
let service: Service;
let keyed: KeyedBrowser;
let admin: FirstAdminBrowser;
let workDir: string;
let adminKey: { pfxFile: string; password: string };
let deputyKey: { pfxFile: string; password: string };

const adminCall = (method: string, urlPath: string, json?: unknown) =>
  call(service, method, urlPath, { key: adminKey, ...(json === undefined ? {} : { json }) });

/** Someone enrolls with a fresh invite and waits for approval. */
async function waitingEnrollee(callsign: string): Promise<void> {
  const created = await adminCall('POST', '/api/v1/enrollment/invitecode/create');
  const invite = (created.json() as { invite_code: string }).invite_code;
  const enrolled = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
    json: { callsign, invite_code: invite },
  });
  expect(enrolled.status).toBe(200);
}

beforeAll(async () => {
  service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '1000' });
  admin = await firstAdminBrowser(service, ADMIN);
  ({ keyed, key: adminKey, workDir } = admin);
  for (const callsign of MEMBERS) await approvedMember(service, adminKey, callsign);
  deputyKey = { pfxFile: path.join(workDir, `${DEPUTY}.pfx`), password: DEPUTY };
  await writeFile(deputyKey.pfxFile, await approvedMember(service, adminKey, DEPUTY));
  expect((await adminCall('POST', '/api/v1/enrollment/promote', { callsign: DEPUTY })).status).toBe(
    200,
  );
  await waitingEnrollee('Waiting1');
  await waitingEnrollee('Waiting2');
});

afterAll(async () => {
  await admin.close();
  await service.stop();
});

/** A page of the admin's browser in `language`. */
function adminPage(device: BrowserContextOptions, urlPath: string, language = 'en') {
  return openKeyedPage(keyed, `${service.mtlsOrigin}${urlPath}`, device, language);
}

/** What the screen shows without scrolling (a long page's menu), beside the full pages. */
async function keepTopOfPage(page: Page, name: string): Promise<void> {
  const file = await keepScreenshot(page, name);
  await page.screenshot({ path: file.replace(/\.png$/, '-top.png') });
}

/**
 * The callsigns the members table (laptop) or its cards (phone) show now, read in one step: a
 * link asked for one at a time may be gone by the time it is read while the list filters, and
 * Playwright then waits its 30 s for it.
 */
function shownCallsigns(page: Page): Promise<string[]> {
  return page
    .locator('main')
    .getByRole('link', { name: /^[A-Za-z]+\d$/ })
    .evaluateAll((links) =>
      links
        .filter((link) => link.checkVisibility({ visibilityProperty: true }))
        .map((link) => (link as HTMLElement).innerText),
    );
}

describe('the admin area for a real unit', () => {
  it('navigation on every admin page, with a pending badge that counts', async () => {
    const { page, context } = await adminPage(DESKTOP, '/app/admin/people');
    const nav = page.getByRole('navigation', { name: 'Admin area' });
    const approvals = nav.getByRole('link', { name: /^Approvals/ });
    await expect.poll(() => approvals.textContent()).toContain('2');
    // Read out as words: "Approvals, 2 waiting for approval".
    expect(
      await nav.getByRole('link', { name: /^Approvals\W+2 waiting for approval$/ }).count(),
    ).toBe(1);
    expect(await nav.getByRole('link', { name: 'Members' }).getAttribute('aria-current')).toBe(
      'page',
    );
    for (const [name, href] of [
      ['Invites', '/app/admin/user-management/code-list'],
      ['Bulk', '/app/admin/user-management/bulk'],
      ['Audit', '/app/admin/audit'],
      ['System', '/app/admin/system'],
    ] as const) {
      expect(await nav.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(href);
    }
    // One more person waits: the count follows.
    await waitingEnrollee('Waiting3');
    await page.goto(`${service.mtlsOrigin}/app/admin/user-management/approval`);
    await expect.poll(() => approvals.textContent()).toContain('3');
    expect(await approvals.getAttribute('aria-current')).toBe('page');
    await keepScreenshot(page, 'members-nav-approvals-desktop');
    // Every admin page has it, the old ones included.
    for (const urlPath of [
      '/app/admin/',
      '/app/admin/manageusers',
      '/app/admin/user-management',
      '/app/admin/user-management/code-list',
      '/app/admin/audit',
      '/app/admin/system',
    ]) {
      await page.goto(`${service.mtlsOrigin}${urlPath}`);
      await nav.waitFor();
      await expect
        .poll(() => nav.getByRole('link', { name: /^Approvals/ }).textContent(), {
          message: urlPath,
        })
        .toContain('3');
    }
    await context.close();
  });

  it('on a phone the navigation is a compact menu', async () => {
    for (const language of ['en', 'fi'] as const) {
      const { page, context } = await adminPage(PHONE, '/app/admin/audit', language);
      const menu = page.getByRole('button', {
        name: language === 'en' ? /^Menu: Audit/ : /^Valikko: Tapahtumaloki/,
      });
      await menu.waitFor();
      const members = page.getByRole('link', { name: language === 'en' ? 'Members' : 'Jäsenet' });
      expect(await members.isVisible()).toBe(false);
      await keepTopOfPage(page, `members-nav-closed-${language}-phone`);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      expect(await members.isVisible()).toBe(true);
      await keepTopOfPage(page, `members-nav-open-${language}-phone`);
      await checkPage(page, 360);
      await members.click();
      await page.waitForURL('**/app/admin/people');
      await context.close();
    }
  });

  it('the members table filters as the admin types, and fits a phone', async () => {
    for (const [device, width, name] of [
      [DESKTOP, 1280, 'desktop'],
      [PHONE, 360, 'phone'],
    ] as const) {
      const { page, context } = await adminPage(device, '/app/admin/people');
      await expect
        .poll(() => shownCallsigns(page))
        .toEqual([
          'Alder2',
          'Alpha1',
          'Bravo3',
          'Charlie4',
          ADMIN,
          DEPUTY,
          'Waiting1',
          'Waiting2',
          'Waiting3',
        ]);
      const main = page.locator('main');
      // Never seen on TAK, said plainly; waiting people say so.
      expect(
        await main.getByText('never', { exact: true }).locator('visible=true').first().isVisible(),
      ).toBe(true);
      expect(
        await main.getByText('waiting for approval').locator('visible=true').first().isVisible(),
      ).toBe(true);
      await keepScreenshot(page, `members-table-en-${name}`);
      await checkPage(page, width);

      const search = main.getByRole('searchbox', { name: 'Search' });
      await search.pressSequentially('al', { delay: 30 });
      await expect.poll(() => shownCallsigns(page)).toEqual(['Alder2', 'Alpha1']);
      await search.pressSequentially('p');
      await expect.poll(() => shownCallsigns(page)).toEqual(['Alpha1']);
      // A team matches too: everyone has the default team, Cyan.
      await search.fill('CYAN');
      await expect.poll(() => shownCallsigns(page)).toHaveLength(9);
      await search.fill('zz');
      await expect
        .poll(() => main.getByRole('status').first().innerText())
        .toBe('No member matches “zz”.');
      await search.fill('');
      await main.getByRole('combobox', { name: 'Sort by' }).selectOption('-callsign');
      await expect.poll(async () => (await shownCallsigns(page))[0]).toBe('Waiting3');
      await keepScreenshot(page, `members-table-sorted-en-${name}`);
      await context.close();
    }
  });

  it('in Finnish on a phone and a laptop', async () => {
    for (const [device, width, name] of [
      [DESKTOP, 1280, 'desktop'],
      [PHONE, 360, 'phone'],
    ] as const) {
      const { page, context } = await adminPage(device, '/app/admin/people', 'fi');
      await expect.poll(() => page.locator('main h1').innerText()).toBe('Jäsenet');
      await expect.poll(async () => (await shownCallsigns(page)).length).toBe(9);
      expect(
        await page
          .locator('main')
          .getByText('ei koskaan')
          .locator('visible=true')
          .first()
          .isVisible(),
      ).toBe(true);
      await page.locator('main').getByRole('searchbox', { name: 'Hae' }).fill('bra');
      await expect.poll(() => shownCallsigns(page)).toEqual(['Bravo3']);
      await keepScreenshot(page, `members-table-fi-${name}`);
      await checkPage(page, width);
      await page.locator('main').getByRole('link', { name: 'Bravo3' }).click();
      await page.waitForURL('**/app/admin/people/Bravo3');
      await expect.poll(() => page.locator('main h1').innerText()).toBe('Bravo3');
      await page.getByRole('button', { name: 'Poista jäsen' }).waitFor();
      await keepScreenshot(page, `members-member-fi-${name}`);
      await checkPage(page, width);
      await context.close();
    }
  });

  it('actions on yourself are off, with the reason shown', async () => {
    for (const [device, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { page, context } = await adminPage(device, `/app/admin/people/${ADMIN}`);
      const main = page.locator('main');
      await main.getByText('This is you: you cannot demote or revoke yourself.').waitFor();
      for (const label of ['Demote to member', 'Revoke member']) {
        const button = main.getByRole('button', { name: label });
        expect(await button.isDisabled(), label).toBe(true);
        expect(await button.getAttribute('aria-describedby'), label).toBeTruthy();
      }
      await keepScreenshot(page, `members-self-en-${name}`);
      await context.close();
    }
  });

  it('promote and demote ask first and name what follows; demoting deactivates their invites', async () => {
    const created = await call(service, 'POST', '/api/v1/enrollment/invitecode/create', {
      key: deputyKey,
    });
    expect(created.status).toBe(200);
    const deputyCode = (created.json() as { invite_code: string }).invite_code;
    const poolOf = async (code: string) =>
      (
        (await adminCall('GET', '/api/v1/enrollment/pools')).json() as {
          pools: { invitecode: string; active: boolean }[];
        }
      ).pools.find((pool) => pool.invitecode === code);
    expect(await poolOf(deputyCode)).toMatchObject({ active: true });

    const { page, context } = await adminPage(PHONE, '/app/admin/people');
    await page.locator('main').getByRole('link', { name: DEPUTY }).click();
    await page.waitForURL(`**/app/admin/people/${DEPUTY}`);
    await page.getByRole('button', { name: 'Demote to member' }).click();
    const ask = page.getByRole('dialog', { name: `Demote ${DEPUTY} to member?` });
    await ask.waitFor();
    expect(await ask.innerText()).toContain(
      `Every invite code ${DEPUTY} created is deactivated now`,
    );
    await keepScreenshot(page, 'members-demote-confirm-en-phone');
    await checkPage(page, 360);
    // Going back changes nothing.
    await ask.getByRole('button', { name: 'Go back' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(await poolOf(deputyCode)).toMatchObject({ active: true });

    await page.getByRole('button', { name: 'Demote to member' }).click();
    await ask.getByRole('button', { name: 'Demote and deactivate their invite codes' }).click();
    await page.getByText(`${DEPUTY} is now a member.`).waitFor();
    expect(await poolOf(deputyCode)).toMatchObject({ active: false });
    expect(
      (await call(service, 'GET', '/api/v1/check-auth/validuser/admin', { key: deputyKey })).status,
    ).toBe(403);

    await page.getByRole('button', { name: 'Promote to admin' }).click();
    const promote = page.getByRole('dialog', { name: `Make ${DEPUTY} an admin?` });
    expect(await promote.innerText()).toContain('promote, demote and revoke members, you included');
    await keepScreenshot(page, 'members-promote-confirm-en-phone');
    await promote.getByRole('button', { name: 'Make admin' }).click();
    await page.getByText(`${DEPUTY} is now an admin.`).waitFor();
    await context.close();

    // In Finnish on a laptop, the same question.
    const fi = await adminPage(DESKTOP, `/app/admin/people/${DEPUTY}`, 'fi');
    await fi.page.getByRole('button', { name: 'Alenna jäseneksi' }).click();
    const kysymys = fi.page.getByRole('dialog', { name: `Alennetaanko ${DEPUTY} jäseneksi?` });
    expect(await kysymys.innerText()).toContain('luomansa kutsukoodit poistetaan nyt käytöstä');
    await keepScreenshot(fi.page, 'members-demote-confirm-fi-desktop');
    await checkPage(fi.page, 1280);
    await fi.context.close();
  });

  it('revokes a member from their page, naming the button for what it does', async () => {
    const { page, context } = await adminPage(DESKTOP, '/app/admin/people/Charlie4');
    await page.getByRole('button', { name: 'Revoke member' }).click();
    const warning = page.getByRole('dialog', { name: 'Revoke Charlie4?' });
    await warning.getByRole('button', { name: 'Revoke member' }).click();
    await page.getByRole('dialog', { name: 'Charlie4 was revoked' }).waitFor();
    await keepScreenshot(page, 'members-revoke-receipt-en-desktop');
    await page.getByRole('dialog').getByRole('button').last().click();
    await page.waitForURL('**/app/admin/people');
    const answer = await adminCall('GET', '/api/v1/admin/members/Charlie4');
    expect((answer.json() as { member: { state: string } }).member.state).toBe('revoked');
    await context.close();
  });
});
