import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, keepScreenshot, launchBrowser, PHONE } from './support/browser.js';
import { startService, type Service } from './support/service.js';

// Past the failure budget (docs/api.md#the-failure-budgets-arithmetic) the server answers 429 with Retry-After; the login
// page says how long to wait, in the reader's language, on a phone and on a laptop. The budget
// is two failures here, so one wrong code spends it; every page of the run then comes from the
// same address, as a unit behind one NAT does.

let service: Service;
let browser: Browser;

beforeAll(async () => {
  service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '2' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await service.stop();
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('on a %s', (name, device) => {
  it.each([
    ['en', 'en-GB', 'Continue', /Try again in (9|10) minutes\./],
    ['fi', 'fi-FI', 'Jatka', /Yritä uudelleen (9|10) minuutin kuluttua\./],
  ] as const)(
    '%s: a wrong code past the budget says how long to wait',
    async (language, locale, submit, wait) => {
      const context = await browser.newContext({ ...device, locale, ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`${service.origin}/login`);
      const alert = page.getByRole('alert');
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await page.getByRole('textbox').fill('WRONG234');
        await page.getByRole('button', { name: submit }).click();
        await expect.poll(() => alert.count()).toBeGreaterThan(0);
        if (wait.test(await alert.first().innerText())) break;
      }
      await expect.poll(() => alert.first().innerText()).toMatch(wait);
      await keepScreenshot(page, `login-too-many-${language}-${name}`);
      await context.close();
    },
  );
});
