import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlapd, type SlapdDirectory } from '../apps/server/test/support/slapd.js';
import { approvedMember, firstAdmin } from './support/api.js';
import { DESKTOP, keepScreenshot, PHONE } from './support/browser.js';
import { checkPage } from './support/checks.js';
import {
  allowCertificateSelection,
  browserWithKey,
  openKeyedPage,
  type KeyedBrowser,
} from './support/nss.js';
import { startService, type Service } from './support/service.js';

// Groups as an admin and a member use them (docs/directory.md, issue 29), the built service
// publishing to Debian's slapd: the admin home's directory card, the groups page, a member put
// in a group from their member page (and seen in the directory as TAK Server reads it), the
// member's home listing it. Screenshots on a phone and a desktop, in English and Finnish
// (test-results/screenshots/groups-*).

const ADMIN = 'Lead1';
const MEMBER = 'Scout5';
let slapd: SlapdDirectory;
let service: Service;
let adminBrowser: KeyedBrowser;
let memberBrowser: KeyedBrowser;
let undoPolicy: () => Promise<void>;
let workDir: string;

beforeAll(async () => {
  slapd = await startSlapd();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-groups-e2e-'));
  const passwordFile = path.join(workDir, 'ldap-password');
  await writeFile(passwordFile, slapd.portalPassword, { mode: 0o600 });
  service = await startService({
    PORTAL_LDAP_URL: slapd.url,
    PORTAL_LDAP_BIND_DN: slapd.portalDn,
    PORTAL_LDAP_BIND_PASSWORD_FILE: passwordFile,
    PORTAL_LDAP_BASE_DN: slapd.baseDn,
  });
  const adminKey = { pfxFile: path.join(workDir, `${ADMIN}.pfx`), password: ADMIN };
  await writeFile(adminKey.pfxFile, (await firstAdmin(service, ADMIN)).pfx);
  const memberKey = { pfxFile: path.join(workDir, `${MEMBER}.pfx`), password: MEMBER };
  await writeFile(memberKey.pfxFile, await approvedMember(service, adminKey, MEMBER));
  undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
  adminBrowser = await browserWithKey(service.rootCaFile, adminKey);
  memberBrowser = await browserWithKey(service.rootCaFile, memberKey);
});

afterAll(async () => {
  await adminBrowser.close();
  await memberBrowser.close();
  await undoPolicy();
  await service.stop();
  await slapd.destroy();
  await rm(workDir, { recursive: true, force: true });
});

/** `urlPath` on the mTLS face in a keyed page of its own (support/nss.ts), in `language`. */
function open(
  keyed: KeyedBrowser,
  device: BrowserContextOptions,
  urlPath: string,
  language = 'en',
): Promise<{ page: Page; context: BrowserContext }> {
  return openKeyedPage(keyed, `${service.mtlsOrigin}${urlPath}`, device, language);
}

describe('groups in the web app, published to the directory', () => {
  it('the admin home shows the directory in sync', async () => {
    for (const [device, width, name] of [
      [PHONE, 360, 'phone'],
      [DESKTOP, 1280, 'desktop'],
    ] as const) {
      for (const language of ['en', 'fi']) {
        const { page, context } = await open(adminBrowser, device, '/app/admin', language);
        const inSync = language === 'en' ? /In sync with ldap:/ : /Ajan tasalla: ldap:/;
        await page.getByText(inSync).waitFor();
        await page.getByText(inSync).scrollIntoViewIfNeeded();
        await keepScreenshot(page, `groups-admin-home-${name}-${language}`);
        await checkPage(page, width);
        await context.close();
      }
    }
  });

  it('creates a group on the groups page and puts a member in it from the member page', async () => {
    const { page, context } = await open(adminBrowser, PHONE, '/app/admin/groups');
    const main = page.locator('main');
    await main.getByRole('textbox', { name: 'Name' }).fill('Red');
    await main.getByRole('textbox', { name: 'Description (optional)' }).fill('Assault team');
    await main.getByRole('button', { name: 'Create group' }).click();
    await main.getByText('Group Red created.').waitFor();
    await main.getByRole('textbox', { name: 'Name' }).fill('HQ Net');
    await main.getByRole('button', { name: 'Create group' }).click();
    await main.getByRole('heading', { name: 'HQ Net' }).waitFor();

    await page.goto(`${service.mtlsOrigin}/app/admin/people/${MEMBER}`);
    const editor = main
      .locator('form')
      .filter({ has: page.getByRole('heading', { name: 'TAK Server groups' }) });
    await editor.getByRole('combobox', { name: 'Red' }).selectOption('both');
    await editor.getByRole('combobox', { name: 'HQ Net' }).selectOption('out');
    await editor.getByRole('button', { name: 'Save groups' }).click();
    await editor.getByText(`Groups of ${MEMBER} saved.`).waitFor();
    await editor.getByRole('heading', { name: 'TAK Server groups' }).scrollIntoViewIfNeeded();
    await keepScreenshot(page, 'groups-member-page-phone-en');
    await context.close();

    // TAK Server's reading: the member's memberOf, as its service account sees it.
    const groups = `ou=groups,${slapd.baseDn}`;
    await expect
      .poll(
        async () =>
          (
            await slapd.search(
              `cn=${MEMBER},ou=users,${slapd.baseDn}`,
              { scope: 'base', attributes: ['memberOf'] },
              { dn: slapd.takDn, password: slapd.takPassword },
            )
          )[0]?.memberOf,
        { timeout: 2000 },
      )
      .toEqual([`cn=tak_HQ Net_READ,${groups}`, `cn=tak_Red,${groups}`]);

    for (const [device, width, name] of [
      [PHONE, 360, 'phone'],
      [DESKTOP, 1280, 'desktop'],
    ] as const) {
      for (const language of ['en', 'fi']) {
        const groupsPage = await open(adminBrowser, device, '/app/admin/groups', language);
        await groupsPage.page.getByRole('heading', { name: 'HQ Net' }).waitFor();
        await keepScreenshot(groupsPage.page, `groups-page-${name}-${language}`);
        await checkPage(groupsPage.page, width);
        await groupsPage.context.close();
      }
    }
  });

  it("shows the member's groups on their home page", async () => {
    for (const [device, width, name] of [
      [PHONE, 360, 'phone'],
      [DESKTOP, 1280, 'desktop'],
    ] as const) {
      for (const language of ['en', 'fi']) {
        const { page, context } = await open(
          memberBrowser,
          device,
          `/app/users/${MEMBER}`,
          language,
        );
        const direction = language === 'en' ? 'Receives only (out)' : 'Vain vastaanottaa (out)';
        await page.getByText(direction).waitFor();
        await keepScreenshot(page, `groups-member-home-${name}-${language}`);
        await checkPage(page, width);
        await context.close();
      }
    }
  });
});
