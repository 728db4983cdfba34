import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousAccessibilityViolations } from './browser.js';

/**
 * The page has drawn its content: its main heading is shown and nothing on it still says
 * "Loading..." (what the app's lists and lazy pages say while their data or code comes).
 */
export async function contentShown(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !/Loading\.\.\.|Ladataan\.\.\./.test(document.body.innerText));
}

/**
 * Once the page's content is shown: no serious accessibility fault, and nothing wider than the
 * screen (`width`). The page's context must bypass the CSP (axe is injected as a script).
 */
export async function checkPage(page: Page, width: number): Promise<void> {
  await contentShown(page);
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    width,
  );
}
