import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/api.js';
import {
  DESKTOP,
  keepScreenshot,
  launchBrowser,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser.js';
import { type KeyedBrowser } from './support/nss.js';
import { checkPage, contentShown } from './support/checks.js';
import { firstAdminBrowser, type FirstAdminBrowser } from './support/first-admin-browser.js';
import { startService, type Service } from './support/service.js';
import { leafSerialOf } from '../apps/server/test/support/pfx-files.js';

// The admin area in Chromium on the mTLS face, with the first admin's
// real key imported into Chromium's own NSS store: invite codes, approvals from the enrollee's
// link, rejections, and promote / demote / revoke of a member whose key is then refused.
// Screenshots of every screen go to test-results/screenshots (admin-*), on a phone and a desktop.

const run = promisify(execFile);
const ADMIN = 'Chief1';
let service: Service;
let keyed: KeyedBrowser;
let admin: FirstAdminBrowser;
let workDir: string;
let adminKey: { pfxFile: string; password: string };

beforeAll(async () => {
  service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '1000' });
  admin = await firstAdminBrowser(service, ADMIN);
  ({ keyed, key: adminKey, workDir } = admin);
});

afterAll(async () => {
  await admin.close();
  await service.stop();
});

/** A page of the admin's browser (their key in NSS); CSP bypassed only for the axe check. */
async function adminPage(
  device: BrowserContextOptions,
  urlPath: string,
): Promise<{ page: Page; context: BrowserContext }> {
  const context = await keyed.browser.newContext({ ...device, bypassCSP: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: service.mtlsOrigin,
  });
  const page = await context.newPage();
  await page.goto(`${service.mtlsOrigin}${urlPath}`);
  return { page, context };
}

async function adminCall(method: string, urlPath: string, json?: unknown) {
  return call(service, method, urlPath, { key: adminKey, ...(json === undefined ? {} : { json }) });
}

async function pools(): Promise<{ invitecode: string; active: boolean }[]> {
  const answer = await adminCall('GET', '/api/v1/enrollment/pools');
  return (answer.json() as { pools: { invitecode: string; active: boolean }[] }).pools;
}

/** Someone enrolls with a fresh invite code through the public API; their token and code. */
async function enrollee(callsign: string): Promise<{ jwt: string; approvecode: string }> {
  const created = await adminCall('POST', '/api/v1/enrollment/invitecode/create');
  const invite = (created.json() as { invite_code: string }).invite_code;
  const enrolled = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
    json: { callsign, invite_code: invite },
  });
  expect(enrolled.status).toBe(200);
  return enrolled.json() as { jwt: string; approvecode: string };
}

async function acceptance(jwt: string): Promise<unknown> {
  return (
    await call(service, 'GET', '/api/v1/enrollment/have-i-been-accepted', { bearer: jwt })
  ).json();
}

describe('the admin area with a real admin key', () => {
  it('home: the welcome with the callsign, the way to manageusers, and the TAK card', async () => {
    for (const [device, name, width] of [
      [DESKTOP, 'desktop', 1280],
      [PHONE, 'phone', 360],
    ] as const) {
      const { page, context } = await adminPage(device, '/app/admin/');
      const main = page.locator('main');
      await expect.poll(() => main.innerText()).toContain(`Welcome, ${ADMIN}`);
      await contentShown(page);
      expect(await main.getByRole('heading', { name: 'TAK', exact: true }).isVisible()).toBe(true);
      // The CA card's chain: the portal's issuing CA signs the keys, under its root.
      const chain = main.getByRole('list', { name: /Chain of trust/ }).getByRole('listitem');
      await expect
        .poll(() => chain.allInnerTexts())
        .toEqual([
          expect.stringMatching(
            /^Callsign Portal Issuing CA\nSigns the members' keys · Expires on /,
          ),
          expect.stringMatching(/^Callsign Portal Root CA\nRoot \(trust anchor\) · Expires on /),
        ]);
      await keepScreenshot(page, `admin-home-${name}`);
      await checkPage(page, width);

      await main.getByRole('link', { name: 'Manage users' }).click();
      await page.waitForURL('**/app/admin/manageusers');
      // A default install has no identity console: no link that points nowhere (issue 31).
      await page.getByText(/No identity-management console is set up for this portal/).waitFor();
      expect(await page.getByRole('link', { name: /identity-management console/ }).count()).toBe(0);
      for (const label of ['Add users', 'Approve users', 'Manage users']) {
        expect(await main.getByRole('link', { name: new RegExp(`^${label}`) }).count()).toBe(1);
      }
      await keepScreenshot(page, `admin-manageusers-${name}`);
      await checkPage(page, width);
      await context.close();
    }
  });

  it('invite codes: create (then its QR page), deactivate, activate and delete, each confirmed', async () => {
    const { page, context } = await adminPage(PHONE, '/app/admin/user-management/code-list');
    const main = page.locator('main');
    await page.getByRole('button', { name: 'Create new code' }).click();
    const asked = Date.now();
    await page.waitForURL(/\/code-list\/[A-Z0-9]{8}$/);
    const code = page.url().split('/').pop() ?? '';
    // The safe default: a week and 25 people, not a reusable code that never expires.
    const made = (
      (await adminCall('GET', '/api/v1/enrollment/pools')).json() as {
        pools: { invitecode: string; expires_at: string | null; max_uses: number | null }[];
      }
    ).pools.find((pool) => pool.invitecode === code);
    expect(made?.max_uses).toBe(25);
    const lasts = Date.parse(made?.expires_at ?? '') - asked;
    expect(Math.abs(lasts - 7 * 86_400_000)).toBeLessThan(5 * 60_000);
    const link = `${service.origin}/login?code=${code}`;
    await expect.poll(() => main.innerText()).toContain(link);
    expect(
      await page.getByRole('img', { name: new RegExp(`invite link for code ${code}`) }).count(),
    ).toBe(1);
    await page.getByRole('button', { name: 'Copy invite link' }).click();
    await page.getByRole('button', { name: 'Link copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await keepScreenshot(page, 'admin-code-qr-phone');
    await checkPage(page, 360);
    expect((await pools()).find((pool) => pool.invitecode === code)?.active).toBe(true);

    await page.getByRole('link', { name: 'Back to the list' }).click();
    await page.waitForURL('**/user-management/code-list');
    const row = main.locator('li', { hasText: code });
    await expect.poll(() => row.innerText()).toMatch(/\bactive\b/);
    await keepScreenshot(page, 'admin-code-list-phone');
    await checkPage(page, 360);

    const choose = async (item: string, confirm: string) => {
      await page.getByRole('button', { name: `Actions for code ${code}` }).click();
      await page.getByRole('menuitem', { name: item }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await keepScreenshot(page, `admin-code-confirm-${item.toLowerCase()}-phone`);
      await dialog.getByRole('button', { name: confirm, exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
    };

    await choose('Deactivate', 'Deactivate');
    await expect.poll(() => row.innerText()).toContain('deactivated');
    expect((await pools()).find((pool) => pool.invitecode === code)?.active).toBe(false);
    const refused = await call(service, 'GET', `/api/v1/enrollment/invitecode?invitecode=${code}`);
    expect(refused.json()).toEqual({
      invitecode_is_active: false,
      invitecode_state: 'deactivated',
    });

    await choose('Activate', 'Activate');
    await expect.poll(() => row.innerText()).not.toContain('deactivated');
    expect((await pools()).find((pool) => pool.invitecode === code)?.active).toBe(true);

    // By keyboard: the menu opens from its button, Escape in the dialog returns focus there.
    const trigger = page.getByRole('button', { name: `Actions for code ${code}` });
    await trigger.focus();
    await page.keyboard.press('Enter');
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    await expect.poll(focused).toBe('Show QR code');
    await keepScreenshot(page, 'admin-code-menu-phone');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Deactivate');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Delete');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: `Delete ${code}?` }).waitFor();
    // The dialog listens for Escape once it has taken the focus (both happen in one effect pass).
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.closest('[role="dialog"]') != null))
      .toBe(true);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe(`Actions for code ${code}`);
    expect((await pools()).map((pool) => pool.invitecode)).toContain(code);

    await choose('Delete', 'Delete');
    await expect.poll(() => row.count()).toBe(0);
    expect((await pools()).map((pool) => pool.invitecode)).not.toContain(code);
    await keepScreenshot(page, 'admin-code-list-after-delete-phone');
    await context.close();
  });

  it('approval from the enrollee’s link: a wrong code fails, the right one approves', async () => {
    // The enrollee, on the public face without a key, copies their approval link.
    const created = await adminCall('POST', '/api/v1/enrollment/invitecode/create');
    const invite = (created.json() as { invite_code: string }).invite_code;
    const browser = await launchBrowser();
    const enrolleeContext = await browser.newContext({ ...PHONE, ignoreHTTPSErrors: true });
    await enrolleeContext.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: service.origin,
    });
    const enrolleePage = await enrolleeContext.newPage();
    await enrolleePage.goto(`${service.origin}/login?code=${invite}`);
    await enrolleePage.waitForURL('**/login/callsign');
    await enrolleePage.getByLabel('Callsign').fill('Ranger1');
    await enrolleePage.getByRole('button', { name: 'Save callsign' }).click();
    await enrolleePage.waitForURL('**/login/enrollment');
    await enrolleePage.getByRole('button', { name: 'Copy approval link' }).click();
    await enrolleePage.getByRole('button', { name: 'Link copied' }).waitFor();
    const approvalLink = await enrolleePage.evaluate(() => navigator.clipboard.readText());
    const jwt = (await enrolleePage.evaluate(() => localStorage.getItem('token'))) ?? '';
    const rightCode = new URL(approvalLink).searchParams.get('approvalcode') ?? '';
    expect(approvalLink).toBe(
      `${service.mtlsOrigin}/app/admin/user-management/approval?callsign=Ranger1&approvalcode=${rightCode}`,
    );
    await enrolleeContext.close();
    await browser.close();

    // The admin opens the link with a code that is wrong (one character off).
    const wrongCode = `${rightCode.slice(0, -1)}${rightCode.endsWith('A') ? 'B' : 'A'}`;
    const wrongLink = approvalLink.replace(
      `approvalcode=${rightCode}`,
      `approvalcode=${wrongCode}`,
    );
    const context = await keyed.browser.newContext({ ...PHONE, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(wrongLink);
    const dialog = page.getByRole('dialog', { name: 'Approval of Ranger1' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Approval code').inputValue()).toBe(wrongCode);
    await keepScreenshot(page, 'admin-approval-dialog-phone');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').innerText())
      .toBe('Approval error: Wrong approval code');
    await keepScreenshot(page, 'admin-approval-wrong-code-phone');
    expect(await acceptance(jwt)).toMatchObject({ have_i_been_accepted: false, state: 'pending' });

    await dialog.getByLabel('Approval code').fill(rightCode);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByText('User approved.').waitFor();
    await keepScreenshot(page, 'admin-approval-approved-phone');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');
    expect(await acceptance(jwt)).toMatchObject({ have_i_been_accepted: true, state: 'approved' });
    await expect
      .poll(() => page.locator('main').innerText())
      .toContain('No users are waiting for approval.');
    await checkPage(page, 360);
    await keepScreenshot(page, 'admin-approval-empty-phone');
    await context.close();
  });

  it('rejects a waiting user after the confirmation', async () => {
    const { jwt } = await enrollee('Ranger2');
    const { page, context } = await adminPage(DESKTOP, '/app/admin/user-management/approval');
    await page.getByRole('button', { name: /Ranger2/ }).click();
    await keepScreenshot(page, 'admin-approval-list-desktop');
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reject Ranger2?' });
    await confirm.waitFor();
    expect(await acceptance(jwt)).toMatchObject({ state: 'pending' });
    await keepScreenshot(page, 'admin-approval-reject-confirm-desktop');
    await confirm.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('The user was rejected.').waitFor();
    await page.getByRole('button', { name: 'OK' }).click();
    expect(await acceptance(jwt)).toMatchObject({ have_i_been_accepted: false, state: 'rejected' });
    await expect
      .poll(() => page.locator('main').innerText())
      .toContain('No users are waiting for approval.');
    await context.close();
  });

  it('promotes, demotes and revokes a member; the revoked member’s key is refused', async () => {
    const { jwt, approvecode } = await enrollee('Ranger3');
    expect(
      (
        await adminCall('POST', '/api/v1/enrollment/accept', {
          callsign: 'Ranger3',
          approvecode,
        })
      ).status,
    ).toBe(200);
    const pfx = await call(service, 'GET', '/api/v1/enduserpfx/Ranger3', { bearer: jwt });
    expect(pfx.status).toBe(200);
    const memberKey = { pfxFile: path.join(workDir, 'Ranger3.pfx'), password: 'Ranger3' };
    await writeFile(memberKey.pfxFile, pfx.body);
    const isAdmin = async () =>
      (await call(service, 'GET', '/api/v1/check-auth/validuser/admin', { key: memberKey })).status;
    expect(await isAdmin()).toBe(403);

    // The old list's address leads to the members table; the member's own page has the actions.
    const { page, context } = await adminPage(PHONE, '/app/admin/user-management');
    await page.waitForURL('**/app/admin/people');
    const main = page.locator('main');
    await expect.poll(() => main.locator('h1').innerText()).toBe('Members');
    await main.getByRole('searchbox', { name: 'Search' }).fill('Ranger3');
    await main.getByRole('link', { name: 'Ranger3' }).locator('visible=true').click();
    await page.waitForURL('**/app/admin/people/Ranger3');
    await main.getByText('Member: uses the services with their key.').waitFor();
    await keepScreenshot(page, 'admin-member-page-phone');
    await checkPage(page, 360);

    // Promote, after the question
    await main.getByRole('button', { name: 'Promote to admin' }).click();
    const promote = page.getByRole('dialog', { name: 'Make Ranger3 an admin?' });
    await promote.getByRole('button', { name: 'Make admin' }).click();
    await page.getByText('Ranger3 is now an admin.').waitFor();
    await main.getByText('Admin: can manage users and invite codes.').waitFor();
    expect(await isAdmin()).toBe(200);

    // Demote, after the question
    await main.getByRole('button', { name: 'Demote to member' }).click();
    const demote = page.getByRole('dialog', { name: 'Demote Ranger3 to member?' });
    await demote.getByRole('button', { name: 'Demote and deactivate their invite codes' }).click();
    await page.getByText('Ranger3 is now a member.').waitFor();
    await main.getByText('Member: uses the services with their key.').waitFor();
    expect(await isAdmin()).toBe(403);

    // The admin cannot demote themselves: the page says so and offers no demote.
    const self = await adminPage(PHONE, `/app/admin/people/${ADMIN}`);
    const selfMain = self.page.locator('main');
    await selfMain.getByText('This is you: you cannot demote or revoke yourself.').waitFor();
    expect(await selfMain.getByRole('button', { name: 'Demote to member' }).isDisabled()).toBe(
      true,
    );
    await keepScreenshot(self.page, 'admin-member-self-phone');
    await self.context.close();

    // Revoke, after the warning
    const validUser = `https://mtls.portal.localhost:${service.port}/api/v1/check-auth/validuser`;
    const curl = async () => {
      const { stdout } = await run('curl', [
        '--silent',
        '--output',
        '/dev/null',
        '--write-out',
        '%{http_code}',
        '--cacert',
        service.rootCaFile,
        '--resolve',
        `mtls.portal.localhost:${service.port}:127.0.0.1`,
        '--cert-type',
        'P12',
        '--cert',
        `${memberKey.pfxFile}:${memberKey.password}`,
        validUser,
      ]);
      return stdout;
    };
    expect(await curl()).toBe('200');
    await main.getByRole('button', { name: 'Revoke member' }).click();
    const warning = page.getByRole('dialog', { name: 'Revoke Ranger3?' });
    await warning.waitFor();
    expect(await warning.innerText()).toContain('This cannot be undone.');
    await keepScreenshot(page, 'admin-user-revoke-warning-phone');
    await warning.getByRole('button', { name: 'Revoke member' }).click();
    // The dialog ends with the receipt: what the CRL and the OCSP responder now say.
    const receipt = page.getByRole('dialog', { name: 'Ranger3 was revoked' });
    await receipt.waitFor();
    const receiptText = await receipt.innerText();
    expect(receiptText).toContain('1 certificate revoked.');
    expect(receiptText).toMatch(/Number \d+, signed /);
    expect(receiptText).toContain('It lists the revoked certificate.');
    expect(receiptText).toContain(`Newest key: ${await leafSerialOf(memberKey)}`);
    expect(receiptText).toMatch(/Revoked since /);
    await checkPage(page, 360);
    await keepScreenshot(page, 'admin-user-revoke-receipt-phone');
    await receipt.getByRole('button', { name: 'Close' }).click();
    // Back on the members table, which now lists Ranger3 as revoked.
    await page.waitForURL('**/app/admin/people');
    await main.getByRole('searchbox', { name: 'Search' }).fill('Ranger3');
    await expect
      .poll(() => main.locator('li').filter({ hasText: 'Ranger3' }).innerText())
      .toContain('revoked');
    await keepScreenshot(page, 'admin-users-after-revoke-phone');

    expect(await curl()).toBe('403');
    expect(
      (await call(service, 'GET', '/api/v1/check-auth/validuser', { key: memberKey })).status,
    ).toBe(403);
    await context.close();
  });

  it('home: the TAK readiness card says where phones enroll and that they need the trust package', async () => {
    for (const [language, label, warning] of [
      ['en', 'Where phones enroll', 'Phones will need the trust package before the QR code works'],
      ['fi', 'Mistä puhelimet hakevat varmenteen', 'Puhelimet tarvitsevat luottamuspaketin'],
    ] as const) {
      for (const [device, name] of [
        [DESKTOP, 'desktop'],
        [PHONE, 'phone'],
      ] as const) {
        const { page, context } = await adminPage(device, '/app/admin/');
        await page.evaluate((lng) => {
          localStorage.setItem('i18nextLng', lng);
        }, language);
        await page.goto(`${service.mtlsOrigin}/app/admin/`);
        const card = page.locator('main');
        await expect.poll(() => card.innerText()).toContain(label);
        const text = await card.innerText();
        // The service's enrollment face: its own port (not 8446) and the portal CA's certificate.
        expect(text).toContain(warning);
        expect(text).toContain('8446');
        await page.getByText(label).scrollIntoViewIfNeeded();
        // Its accessibility and width: the admin home's sweep (the first test, and in Finnish).
        await keepScreenshot(page, `admin-readiness-enrollment-${language}-${name}`);
        await context.close();
      }
    }
  });

  it('the revocation receipt in Finnish on a laptop', async () => {
    const { jwt, approvecode } = await enrollee('Vahti2');
    await adminCall('POST', '/api/v1/enrollment/accept', { callsign: 'Vahti2', approvecode });
    expect((await call(service, 'GET', '/api/v1/enduserpfx/Vahti2', { bearer: jwt })).status).toBe(
      200,
    );
    const { page, context } = await adminPage(DESKTOP, '/app/admin/');
    await page.evaluate(() => {
      localStorage.setItem('i18nextLng', 'fi');
    });
    await page.goto(`${service.mtlsOrigin}/app/admin/people/Vahti2`);
    await page.locator('main').getByRole('button', { name: 'Poista jäsen' }).click();
    const warning = page.getByRole('dialog', { name: 'Poistetaanko Vahti2?' });
    expect(await warning.innerText()).toContain('Tätä ei voi perua.');
    await warning.getByRole('button', { name: 'Poista jäsen' }).click();
    const receipt = page.getByRole('dialog', { name: 'Vahti2 on poistettu' });
    await receipt.waitFor();
    const text = await receipt.innerText();
    expect(text).toContain('1 varmenne mitätöity.');
    expect(text).toContain('Mitätöity varmenne on listalla.');
    expect(text).toMatch(/Mitätöity .* alkaen/);
    await checkPage(page, 1280);
    await keepScreenshot(page, 'admin-fi-revoke-receipt-desktop');
    await context.close();
  });

  it('in Finnish on a phone: the main pages fit the screen and pass the accessibility check', async () => {
    await enrollee('Vartija1');
    const { page, context } = await adminPage(PHONE, '/app/admin/');
    await page.evaluate(() => {
      localStorage.setItem('i18nextLng', 'fi');
    });
    for (const [urlPath, heading, name] of [
      ['/app/admin/', 'Ylläpito', 'home'],
      ['/app/admin/manageusers', 'Hallitse käyttäjiä', 'manageusers'],
      ['/app/admin/people', 'Jäsenet', 'users'],
      ['/app/admin/people/Vartija1', 'Vartija1', 'member'],
      ['/app/admin/user-management/code-list', 'Kutsukoodit', 'code-list'],
      ['/app/admin/user-management/approval', 'Hyväksy käyttäjiä', 'approval'],
    ] as const) {
      await page.goto(`${service.mtlsOrigin}${urlPath}`);
      await expect.poll(() => page.locator('main h1').innerText()).toBe(heading);
      await contentShown(page);
      await keepScreenshot(page, `admin-fi-${name}-phone`);
      await checkPage(page, 360);
    }
    await page.getByRole('button', { name: /Vartija1/ }).click();
    await page.getByRole('dialog', { name: 'Käyttäjän Vartija1 hyväksyminen' }).waitFor();
    await keepScreenshot(page, 'admin-fi-approval-dialog-phone');
    // The admin home on a laptop in Finnish too: the CA card's chain.
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${service.mtlsOrigin}/app/admin/`);
    await page.getByRole('list', { name: /Luottamusketju/ }).waitFor();
    await keepScreenshot(page, 'admin-fi-home-desktop');
    await checkPage(page, 1280);
    await context.close();
  });

  it('any other admin path shows the not-found page', async () => {
    const { page, context } = await adminPage(PHONE, '/app/admin/no-such-page');
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Page not found');
    await keepScreenshot(page, 'admin-not-found-phone');
    await context.close();
  });
});
