import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';

// A browser that holds a member's key the way a Linux desktop does: the .pfx imported into
// Chromium's NSS store under its own HOME, the portal's CA trusted there, and the certificate
// picked by the managed policy AutoSelectCertificateForUrls (which needs root to write).

const run = promisify(execFile);
const POLICY_DIR = '/etc/chromium/policies/managed';

/**
 * Lets Chromium present a certificate to the host of `mtlsOrigin`, on any port, without asking.
 * Returns the undo. Each test process writes its own policy file with the same host-only
 * pattern, so browser tests running at the same time (other portals, other ports) never replace
 * or remove the policy under one another's running browser.
 */
export async function allowCertificateSelection(mtlsOrigin: string): Promise<() => Promise<void>> {
  await mkdir(POLICY_DIR, { recursive: true });
  const file = path.join(POLICY_DIR, `callsign-portal-e2e-${process.pid}.json`);
  const pattern = JSON.stringify({ pattern: new URL(mtlsOrigin).hostname, filter: {} });
  await writeFile(file, JSON.stringify({ AutoSelectCertificateForUrls: [pattern] }));
  return () => rm(file, { force: true });
}

export interface KeyedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * A page of `keyed` in a context of its own (`options`: the device and the like), `url` loaded;
 * the app renders after the load, so wait for what you read.
 */
export async function openWithKey(
  keyed: KeyedBrowser,
  url: string,
  options: BrowserContextOptions,
): Promise<Page> {
  const context = await keyed.browser.newContext(options);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

/**
 * A page of `keyed` in a context of its own, in `language` (set before the app loads), with the
 * CSP bypassed for the accessibility check; `url` loaded (wait for what you read: the app renders
 * after the load). Close its context when done.
 */
export async function openKeyedPage(
  keyed: KeyedBrowser,
  url: string,
  device: BrowserContextOptions,
  language = 'en',
): Promise<{ page: Page; context: BrowserContext }> {
  const context = await keyed.browser.newContext({ ...device, bypassCSP: true });
  await context.addInitScript((lng: string) => {
    localStorage.setItem('i18nextLng', lng);
  }, language);
  const page = await context.newPage();
  await page.goto(url);
  return { page, context };
}

/** A HOME whose NSS store trusts `rootCaFile` and holds the .pfx of `key`; Chromium reads it. */
export interface KeyProfile {
  home: string;
  remove(): Promise<void>;
}

export async function keyProfile(
  rootCaFile: string,
  key: { pfxFile: string; password: string },
): Promise<KeyProfile> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'portal-nss-'));
  const nssDir = path.join(home, '.pki', 'nssdb');
  const nss = `sql:${nssDir}`;
  await mkdir(nssDir, { recursive: true });
  await run('certutil', ['-d', nss, '-N', '--empty-password']);
  await run('certutil', [
    '-d',
    nss,
    '-A',
    '-t',
    'C,,',
    '-n',
    'Callsign Portal e2e',
    '-i',
    rootCaFile,
  ]);
  await run('pk12util', ['-d', nss, '-i', key.pfxFile, '-W', key.password]);
  return { home, remove: () => rm(home, { recursive: true, force: true }) };
}

/** Chromium on a profile made by `keyProfile` (which outlives it: closing leaves the profile). */
export async function browserInProfile(home: string): Promise<KeyedBrowser> {
  const browser = await launchBrowser({ HOME: home });
  return { browser, close: () => browser.close() };
}

/** Chromium with its own NSS store that trusts `rootCaFile` and holds the .pfx of `callsign`. */
export async function browserWithKey(
  rootCaFile: string,
  key: { pfxFile: string; password: string },
): Promise<KeyedBrowser> {
  const profile = await keyProfile(rootCaFile, key);
  const keyed = await browserInProfile(profile.home);
  return {
    browser: keyed.browser,
    async close() {
      await keyed.close();
      await profile.remove();
    },
  };
}
