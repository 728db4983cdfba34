import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, call } from './support/api.js';
import {
  DESKTOP,
  keepScreenshot,
  launchBrowser,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser.js';
import type { FirstAdminBrowser } from './support/first-admin-browser.js';
import { browserWithKey, type KeyedBrowser } from './support/nss.js';
import type { Portal } from './support/service.js';
import { SHARED_ADMIN, sharedAdminBrowser, sharedPortal } from './support/shared-portal.js';

// Errors that name the case and the next step (issue 31), in a real browser against the built
// portal: no key on this device, a revoked key, a used / expired / deactivated invite code, an
// approval link opened on the public face; and "Sign out" in the header of both faces, which
// clears what the browser stored. Screenshots on a phone and a laptop in English and Finnish:
// test-results/screenshots/error-*.png, signout-*.png.

const DEVICES = [
  ['phone', PHONE],
  ['laptop', DESKTOP],
] as const;
const LANGUAGES = ['en', 'fi'] as const;

const service: Portal = sharedPortal();
let browser: Browser;
let workDir: string;
let adminKey: { pfxFile: string; password: string };
let admin: FirstAdminBrowser;
let adminBrowser: KeyedBrowser;
let revokedBrowser: KeyedBrowser;
const codes: Record<'deactivated' | 'expired' | 'used-up', string> = {
  deactivated: '',
  expired: '',
  'used-up': '',
};

async function asAdmin(method: string, urlPath: string, json?: unknown) {
  const answer = await call(service, method, urlPath, {
    key: adminKey,
    ...(json === undefined ? {} : { json }),
  });
  expect(answer.status, answer.body.toString()).toBe(200);
  return answer.json() as Record<string, unknown>;
}

async function inviteCode(options: Record<string, unknown>): Promise<string> {
  return String(
    (await asAdmin('POST', '/api/v1/enrollment/invitecode/create', options)).invite_code,
  );
}

beforeAll(async () => {
  // Each dead code tried counts as a failed guess: 16 tries here, past a minute's budget (the
  // shared portal has none to run out).
  browser = await launchBrowser();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-errors-e2e-'));
  admin = await sharedAdminBrowser();
  ({ keyed: adminBrowser, key: adminKey } = admin);

  // A member whose key an admin then revokes (with the member).
  const gone = { pfxFile: path.join(workDir, 'Gone1.pfx'), password: 'Gone1' };
  await writeFile(gone.pfxFile, await approvedMember(service, adminKey, 'Gone1'));
  revokedBrowser = await browserWithKey(service.rootCaFile, gone);
  await asAdmin('DELETE', '/api/v1/people/Gone1');

  codes.deactivated = await inviteCode({});
  await asAdmin('PUT', '/api/v1/enrollment/invitecode/deactivate', {
    invite_code: codes.deactivated,
  });
  codes['used-up'] = await inviteCode({ max_uses: 1 });
  const enrolled = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
    json: { callsign: 'Early1', invite_code: codes['used-up'] },
  });
  expect(enrolled.status).toBe(200);
  codes.expired = await inviteCode({ expires_at: new Date(Date.now() + 1500).toISOString() });
  await new Promise((resolve) => setTimeout(resolve, 2000));
});

afterAll(async () => {
  await revokedBrowser.close();
  await admin.close();
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
});

/** A page of `from` on `device` in `language` (CSP bypassed for the accessibility check). */
async function open(
  from: Browser,
  device: BrowserContextOptions,
  language: string,
  url: string,
): Promise<Page> {
  const context = await from.newContext({ ...device, ignoreHTTPSErrors: true, bypassCSP: true });
  await context.addInitScript((lng: string) => {
    localStorage.setItem('i18nextLng', lng);
  }, language);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

async function heading(page: Page): Promise<string> {
  await page.locator('main h1').waitFor();
  return page.locator('main h1').innerText();
}

/** Shown on both devices in both languages, screenshot kept, axe clean; `check` on each. */
async function everywhere(
  name: string,
  from: () => Browser,
  url: () => string,
  expected: Record<(typeof LANGUAGES)[number], string>,
  check: (page: Page) => Promise<void> = async () => {},
): Promise<void> {
  for (const [device, options] of DEVICES) {
    for (const language of LANGUAGES) {
      const page = await open(from(), options, language, url());
      await expect.poll(() => heading(page)).toBe(expected[language]);
      await check(page);
      await keepScreenshot(page, `error-${name}-${device}-${language}`);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        options.viewport?.width ?? 1280,
      );
      await page.context().close();
    }
  }
}

describe('error pages that name the case and the next step', () => {
  it('no key on this device: the mTLS face without a key', async () => {
    await everywhere(
      'no-key',
      () => browser,
      () => `${service.mtlsOrigin}/app/admin/`,
      { en: 'No key on this device', fi: 'Tällä laitteella ei ole avainta' },
      (page) => {
        expect(page.url()).toBe(`${service.origin}/error?code=mtls_fail&reason=no_key`);
        return Promise.resolve();
      },
    );
  });

  it('a revoked key: "ask your admin", no install advice, no way back to the key address', async () => {
    await everywhere(
      'revoked',
      () => revokedBrowser.browser,
      () => `${service.mtlsOrigin}/`,
      { en: 'Your key was revoked', fi: 'Avaimesi on mitätöity' },
      async (page) => {
        expect(page.url()).toBe(`${service.origin}/error?code=mtls_fail&reason=revoked`);
        const text = await page.locator('main').innerText();
        expect(text).toMatch(/ask your admin|Kysy ylläpitäjältäsi/i);
        expect(text).not.toMatch(/install|guide|password|asenn|salasan/i);
        const links = await page
          .locator('main a')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('href') ?? ''));
        expect(links.filter((href) => href.includes('mtls.'))).toEqual([]);
      },
    );
  });

  it.each([
    ['deactivated', 'An admin has switched this code off.', 'Ylläpitäjä on poistanut'],
    ['expired', 'This code has expired.', 'Tämä koodi on vanhentunut.'],
    ['used-up', 'already been used as many times as it allows', 'on jo käytetty'],
  ] as const)(
    'a %s invite code says so on sign-in, not "the code is wrong"',
    async (state, en, fi) => {
      for (const [device, options] of DEVICES) {
        for (const language of LANGUAGES) {
          const page = await open(
            browser,
            options,
            language,
            `${service.origin}/login?code=${codes[state]}`,
          );
          const alert = page.locator('main [role="alert"]');
          await expect.poll(() => alert.innerText()).toContain(language === 'en' ? en : fi);
          expect(await alert.innerText()).not.toMatch(/code is wrong|koodi on väärä/i);
          await keepScreenshot(page, `error-code-${state}-${device}-${language}`);
          await page.context().close();
        }
      }
    },
  );

  it('an approval link opened on the public face leads to it with the key', async () => {
    const approval = '/app/admin/user-management/approval?callsign=Early1&approvalcode=ABCD2345';
    await everywhere(
      'approval-link',
      () => browser,
      () => `${service.origin}${approval}`,
      {
        en: 'Open this approval link with an admin key',
        fi: 'Avaa hyväksyntälinkki ylläpitäjän avaimella',
      },
      async (page) => {
        expect(new URL(page.url()).pathname).toBe('/error');
        const link = page.locator('main a[href^="https://mtls."]');
        expect(await link.getAttribute('href')).toBe(`${service.mtlsOrigin}${approval}`);
      },
    );
    // An admin on a device with their key follows it to the approval, filled in.
    const page = await open(adminBrowser.browser, PHONE, 'en', `${service.origin}${approval}`);
    await page.getByRole('link', { name: 'Open with your key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approval of Early1' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Approval code').inputValue()).toBe('ABCD2345');
    await page.context().close();
  });
});

describe('"Sign out" in the header of both faces', () => {
  const stored = (page: Page) =>
    page.evaluate(() =>
      ['token', 'callsign', 'approveCode'].map((key) => localStorage.getItem(key)),
    );

  it('on the public face: a pending enrollee signs out and nothing of the session is left', async () => {
    const code = await inviteCode({});
    const enrolled = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
      json: { callsign: 'Shared1', invite_code: code },
    });
    const { jwt, approvecode } = enrolled.json() as { jwt: string; approvecode: string };
    const acceptance = () =>
      call(service, 'GET', '/api/v1/enrollment/have-i-been-accepted', { bearer: jwt });
    expect((await acceptance()).status).toBe(200);
    for (const [device, options] of DEVICES) {
      for (const language of LANGUAGES) {
        const page = await open(browser, options, language, `${service.origin}/login`);
        await page.evaluate(
          ([token, approveCode]) => {
            localStorage.setItem('token', token ?? '');
            localStorage.setItem('callsign', 'Shared1');
            localStorage.setItem('approveCode', approveCode ?? '');
          },
          [jwt, approvecode],
        );
        await page.goto(`${service.origin}/login/enrollment`);
        const name =
          language === 'en' ? 'Sign out on this device' : 'Kirjaudu ulos tältä laitteelta';
        const signOut = page.getByRole('banner').getByRole('button', { name });
        await signOut.waitFor();
        await keepScreenshot(page, `signout-public-${device}-${language}`);
        await signOut.click();
        await page.waitForURL('**/login');
        expect(await stored(page)).toEqual([null, null, null]);
        expect(await page.getByRole('button', { name: /sign out|kirjaudu ulos/i }).count()).toBe(0);
        await page.context().close();
      }
    }
    // The sign-out ended the token on the server: a copy taken from the browser is refused.
    expect((await acceptance()).status).toBe(403);
  });

  it('on the mTLS face too, when a token is stored there', async () => {
    for (const [device, options] of DEVICES) {
      const page = await open(
        adminBrowser.browser,
        options,
        'en',
        `${service.mtlsOrigin}/app/admin/`,
      );
      await page.locator('main').getByText(`Welcome, ${SHARED_ADMIN}`, { exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Sign out on this device' }).count()).toBe(0);
      await page.evaluate((callsign) => {
        localStorage.setItem('token', 'a-token-left-here');
        localStorage.setItem('callsign', callsign);
      }, SHARED_ADMIN);
      await page.reload();
      const signOut = page
        .getByRole('banner')
        .getByRole('button', { name: 'Sign out on this device' });
      await signOut.waitFor();
      await keepScreenshot(page, `signout-mtls-${device}-en`);
      await signOut.click();
      // Signed out of the stored session; the key still opens the admin's pages.
      await page.waitForURL('**/app/admin');
      expect(await stored(page)).toEqual([null, null, null]);
      await page.context().close();
    }
  });
});
