import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousAccessibilityViolations } from './browser.js';

/**
 * No serious accessibility fault, and nothing wider than the screen (`width`). The page's
 * context must bypass the CSP (axe is injected as a script).
 */
export async function checkPage(page: Page, width: number): Promise<void> {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    width,
  );
}
