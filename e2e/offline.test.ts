import { readFileSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/api.js';
import { DESKTOP, keepScreenshot, PHONE } from './support/browser.js';
import { browserWithKey, type KeyedBrowser } from './support/nss.js';
import type { FirstAdminBrowser } from './support/first-admin-browser.js';
import { startService, type Portal } from './support/service.js';
import { sharedAdminBrowser, sharedPortal } from './support/shared-portal.js';

// The offline guides (issue 19): the built app's service worker precaches the shell, the
// locales, every guide page and its illustrations. A browser that opened the portal once reads
// the TAK guides and the key-install guide with the network off, and the login page says it is
// offline. Service workers need a secure context the browser trusts: the portal's CA is trusted
// in Chromium's own NSS store (support/nss.ts), as for the admin's key.

const TAK = '/app/services/tak';
const GUIDE_STEPS = [
  ...['android1', 'android2', 'android3', 'android4', 'android5'].map((s) => `quickstart/${s}`),
  ...['ios1', 'ios2', 'ios3', 'ios4', 'ios5'].map((s) => `quickstart/${s}`),
  ...['win1', 'win2', 'win3', 'win4'].map((s) => `quickstart/${s}`),
  ...['android1', 'android2', 'android3', 'ios1', 'win1', 'win2', 'win3', 'win4'].map(
    (s) => `usage/${s}`,
  ),
];

const GUIDE_TEXT = JSON.parse(
  readFileSync(
    fileURLToPath(
      new URL('../apps/web/src/locales/en/namespaces/tak-guides.json', import.meta.url),
    ),
    'utf8',
  ),
) as Record<string, Record<string, { title: string }>>;

const service: Portal = sharedPortal();
let workDir: string;
let admin: FirstAdminBrowser;
let keyed: KeyedBrowser;
let adminKey: { pfxFile: string; password: string };

beforeAll(async () => {
  admin = await sharedAdminBrowser();
  ({ keyed, key: adminKey, workDir } = admin);
});

afterAll(async () => {
  await admin.close();
});

/** Opens `url` online and waits until the service worker is active (its precache complete). */
async function openOnce(
  origin: string,
  url: string,
  device: BrowserContextOptions,
  browser: KeyedBrowser = keyed,
): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.browser.newContext(device);
  const page = await context.newPage();
  // What the page and its worker said, for the message of a worker that never becomes active.
  const seen: string[] = [];
  page.on('console', (message) => seen.push(`console ${message.type()}: ${message.text()}`));
  context.on('requestfailed', (request) =>
    seen.push(`failed ${request.url()}: ${request.failure()?.errorText ?? ''}`),
  );
  await page.goto(`${origin}${url}`);
  const active = await page.evaluate(() =>
    Promise.race([
      navigator.serviceWorker.ready.then(() => true),
      new Promise<boolean>((resolve) =>
        setTimeout(() => {
          resolve(false);
        }, 60_000),
      ),
    ]),
  );
  if (!active) {
    const registration = await page.evaluate(async () => {
      const found = await navigator.serviceWorker.getRegistration();
      if (found === undefined) return 'no registration';
      return JSON.stringify({
        installing: found.installing?.state ?? null,
        waiting: found.waiting?.state ?? null,
        active: found.active?.state ?? null,
      });
    });
    seen.unshift(`registration: ${registration}`);
  }
  expect(active, `a service worker became active\n${seen.join('\n')}`).toBe(true);
  return { page, context };
}

/** Every illustration of the page has loaded (none is a broken image). */
async function imagesLoaded(page: Page): Promise<boolean> {
  return page.evaluate(() =>
    [...document.querySelectorAll('main img')].every(
      (image) => image instanceof HTMLImageElement && image.complete && image.naturalWidth > 0,
    ),
  );
}

describe('offline, after one visit', () => {
  it('every TAK guide page renders with its illustrations', async () => {
    const { page, context } = await openOnce(service.mtlsOrigin, `${TAK}/quickstart`, PHONE);
    await context.setOffline(true);
    // Nothing of the portal answers now, except from the service worker's precache.
    expect(
      await page.evaluate(() =>
        fetch('/api/v1/health').then(
          () => 'answered',
          () => 'failed',
        ),
      ),
    ).toBe('failed');

    for (const [url, title] of [
      [`${TAK}/quickstart`, 'TAK quickstart'],
      [`${TAK}/usage`, 'Using TAK'],
    ] as const) {
      await page.goto(`${service.mtlsOrigin}${url}`, { waitUntil: 'load' });
      await expect.poll(() => page.locator('main h1').innerText()).toBe(title);
    }
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toContain('You are offline.');
    let illustrations = 0;
    for (const step of GUIDE_STEPS) {
      await page.goto(`${service.mtlsOrigin}${TAK}/${step}`, { waitUntil: 'load' });
      const heading = page.locator('main h1');
      await heading.waitFor();
      // The step's own text, from the precached guide namespace (not its key, not a fallback).
      const [section = '', id = ''] = step.split('/');
      await expect.poll(() => heading.innerText()).toBe(GUIDE_TEXT[section]?.[id]?.title);
      await expect.poll(() => imagesLoaded(page)).toBe(true);
      illustrations += await page.locator('main img').count();
      if (step === 'quickstart/android1') await keepScreenshot(page, 'offline-tak-guide-phone');
    }
    // Every picture of the open cards was checked above (19 across the guides today), so the
    // pictures were there to check: offline they would be broken images.
    expect(illustrations).toBeGreaterThanOrEqual(GUIDE_STEPS.length - 5);
    await context.close();
  });

  it('the key-install guide renders, in every OS, with its illustration', async () => {
    const { page, context } = await openOnce(service.origin, '/login', DESKTOP);
    await page.evaluate(() => {
      localStorage.setItem('callsign', 'Scout1');
    });
    await context.setOffline(true);
    await page.goto(`${service.origin}/login/createmtls`, { waitUntil: 'load' });
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Your key');
    for (const [os, title] of [
      ['Windows', 'Install your key on Windows 10 or 11'],
      ['macOS', 'Install your key on a Mac'],
      ['Linux', 'Install your key on Linux'],
      ['Android', 'Install your key on Android'],
      ['iOS', 'Install your key on iPhone or iPad'],
    ] as const) {
      await page.locator('label', { hasText: new RegExp(`^${os}$`) }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 2, name: title, exact: true }).isVisible())
        .toBe(true);
      await expect.poll(() => imagesLoaded(page)).toBe(true);
    }
    await keepScreenshot(page, 'offline-key-guide-desktop');
    await context.close();
  });

  it('a keyed page says "you are offline" and leads to the guides, never the sign-in form', async () => {
    for (const [device, options] of [
      ['phone', PHONE],
      ['laptop', DESKTOP],
    ] as const) {
      for (const [language, title, quickstart] of [
        ['en', 'You are offline', 'Quickstart'],
        ['fi', 'Ei yhteyttä', 'Pika-aloitus'],
      ] as const) {
        const { page, context } = await openOnce(service.mtlsOrigin, '/app/admin/', options);
        await page.evaluate((lng) => {
          localStorage.setItem('i18nextLng', lng);
        }, language);
        // Once online in that language, as its reader would have (its branding texts kept).
        await page.reload();
        await page.locator('main h1').waitFor();
        await page.waitForFunction(
          (lng) =>
            ['common', 'dynamic'].every((ns) => localStorage.getItem(`i18next_res_${lng}-${ns}`)),
          language,
        );
        await context.setOffline(true);
        for (const url of ['/app/admin/', '/app/keys', '/']) {
          await page.goto(`${service.mtlsOrigin}${url}`, { waitUntil: 'load' });
          await expect.poll(() => page.locator('main h1').innerText()).toBe(title);
          expect(new URL(page.url()).pathname).toBe(url);
          expect(await page.getByLabel(/One-time code|Kertakäyttökoodi/).count()).toBe(0);
        }
        await keepScreenshot(page, `offline-keyed-page-${device}-${language}`);
        // The guides the page offers open offline.
        await page.locator('main').getByRole('link', { name: quickstart }).click();
        await page.waitForURL(`**${TAK}/quickstart`);
        await expect.poll(() => page.locator('main h1').innerText()).not.toBe(title);
        // Back online, the keyed page comes back by itself.
        await page.goto(`${service.mtlsOrigin}/app/admin/`, { waitUntil: 'load' });
        await expect.poll(() => page.locator('main h1').innerText()).toBe(title);
        await context.setOffline(false);
        await expect
          .poll(() => page.locator('main h1').innerText(), { timeout: 45_000 })
          .not.toBe(title);
        await context.close();
      }
    }
  });

  it('the login page says it is offline, in English and Finnish', async () => {
    const { page, context } = await openOnce(service.origin, '/login', PHONE);
    await context.setOffline(true);
    await page.goto(`${service.origin}/login`, { waitUntil: 'load' });
    const notice = page.getByRole('status').filter({ hasText: 'You are offline.' });
    await notice.waitFor();
    await page.getByLabel('One-time code').fill('ABCD2345EFGH');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('No connection');
    await keepScreenshot(page, 'offline-login-phone');

    await page.evaluate(() => {
      localStorage.setItem('i18nextLng', 'fi');
    });
    await page.goto(`${service.origin}/login`, { waitUntil: 'load' });
    await page.getByRole('status').filter({ hasText: 'Ei verkkoyhteyttä.' }).waitFor();
    await keepScreenshot(page, 'offline-login-fi-phone');
    await context.close();
  });
});

describe('a network that is up but does not reach the portal', () => {
  it('says so although the browser thinks it is online, and stops once the portal answers', async () => {
    const { page, context } = await openOnce(service.origin, '/login', PHONE);
    // A unit's Wi-Fi without an uplink, or a captive network: the browser has a network, and
    // every request to the portal fails (the service worker's own fetches included).
    const portal = `${service.origin}/**`;
    await context.route(portal, (route) => route.abort('connectionrefused'));
    await page.goto(`${service.origin}/login`, { waitUntil: 'load' });
    expect(await page.evaluate(() => navigator.onLine)).toBe(true);
    const notice = page.getByRole('status').filter({ hasText: 'You are offline.' });
    await notice.waitFor();
    await page.getByLabel('One-time code').fill('ABCD2345EFGH');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('No connection');
    await keepScreenshot(page, 'unreachable-login-phone');

    // The portal answers again: the app's own check (every few seconds) takes the notice away.
    await context.unroute(portal);
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    await context.close();
  });
});

describe('the installable app', () => {
  it('serves a manifest with the deployment name and icons; the CSP allows it and the worker', async () => {
    const manifest = await call(service, 'GET', '/manifest.webmanifest');
    expect(manifest.status).toBe(200);
    const body = manifest.json() as { name: string; icons: { src: string }[] };
    expect(body.name).toBe('Callsign Portal');
    for (const icon of body.icons) {
      expect((await call(service, 'GET', icon.src)).status).toBe(200);
    }
    // On both faces (the mTLS face's manifest request needs the client certificate).
    for (const [origin, url] of [
      [service.origin, '/login'],
      [service.mtlsOrigin, `${TAK}/quickstart`],
    ] as const) {
      const { page, context } = await openOnce(origin, url, DESKTOP);
      const response = await page.goto(`${origin}${url}`);
      const csp = (await response?.allHeaders())?.['content-security-policy'] ?? '';
      expect(csp).toContain("manifest-src 'self'");
      expect(csp).toContain("worker-src 'self'");
      // The browser itself fetched and read the manifest (CSP or credentials would stop it).
      const session = await context.newCDPSession(page);
      const manifestSeen = (await session.send('Page.getAppManifest')) as {
        url: string;
        errors: unknown[];
        data?: string;
      };
      expect(manifestSeen.url).toBe(`${origin}/manifest.webmanifest`);
      expect(manifestSeen.errors).toEqual([]);
      expect(JSON.parse(manifestSeen.data ?? '{}')).toMatchObject({ name: 'Callsign Portal' });
      await context.close();
    }
  });
});

describe('a new build deployed', () => {
  it('is offered by the update prompt, and Reload switches to it', async () => {
    // A portal serving its own copy of the build, so the test can "deploy" a new one.
    const webDir = path.join(workDir, 'web');
    await cp(fileURLToPath(new URL('../apps/web/dist', import.meta.url)), webDir, {
      recursive: true,
    });
    const deployed = await startService({ PORTAL_WEB_DIR: webDir });
    // Its own CA: a browser that trusts it (the key it holds is not used on the public face).
    const trusting = await browserWithKey(deployed.rootCaFile, adminKey);
    try {
      const { page, context } = await openOnce(deployed.origin, '/login', PHONE, trusting);
      const prompt = page.getByRole('status').filter({ hasText: 'A new version' });
      await page.reload();
      await page.locator('main h1').waitFor();
      // The browser's check for a new worker, done: nothing new, so nothing to offer.
      await page.evaluate(async () => {
        await (await navigator.serviceWorker.getRegistration())?.update();
      });
      expect(await prompt.count()).toBe(0);

      // The new build: a worker whose precache differs (as any change to the app makes it).
      const workerFile = path.join(webDir, 'sw.js');
      const worker = await readFile(workerFile, 'utf8');
      const changed = worker.replace(/(url:"index\.html",revision:")[0-9a-f]+/, '$1feedc0de');
      expect(changed).not.toBe(worker);
      await writeFile(workerFile, changed);

      const firstWorker = await page.evaluate(
        async () => (await navigator.serviceWorker.ready).active?.scriptURL,
      );
      await page.reload();
      await prompt.waitFor();
      await keepScreenshot(page, 'update-prompt-phone');
      // Listening before the click: on a busy machine the new page can load before a listener
      // added after the click is there (seen timing out so).
      await Promise.all([
        page.waitForEvent('load'),
        prompt.getByRole('button', { name: 'Reload' }).click(),
      ]);
      await page.locator('main h1').waitFor();
      expect(await prompt.count()).toBe(0);
      // The page is now controlled by the new worker: its precache holds the new revision.
      const revisions = await page.evaluate(async () => {
        const keys = await Promise.all(
          (await caches.keys()).map(async (name) => (await caches.open(name)).keys()),
        );
        return keys.flat().map((request) => request.url);
      });
      expect(revisions.some((url) => url.includes('feedc0de'))).toBe(true);
      expect(firstWorker).toContain('/sw.js');
      await context.close();
    } finally {
      await trusting.close();
      await deployed.stop();
    }
  });
});
