import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollWithNodeTak } from '../apps/server/test/support/node-tak-client.js';
import { approvedMember, firstAdmin } from './support/api.js';
import {
  DESKTOP,
  keepScreenshot,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser.js';
import {
  allowCertificateSelection,
  browserWithKey,
  openWithKey,
  type KeyedBrowser,
} from './support/nss.js';
import { startService, type Service } from './support/service.js';

// One-scan TAK enrollment in a real browser (issue 16): invite, callsign and the admin's
// approval through the API, then the member's "Connect ATAK or iTAK" card on the mTLS face; the
// user name and code read off the page are used by a TAK client library (@tak-ps/node-tak,
// unmodified, in its stock OAuth flow), and the key that library made on its own opens the mTLS
// face as the member. The TAK host is `localhost`, so the library reaches the face by its name.

let service: Service;
let workDir: string;
let undoPolicy: () => Promise<void>;
let member: KeyedBrowser;
let admin: KeyedBrowser;
let caPem: string;

beforeAll(async () => {
  service = await startService({ TAK_HOST: 'localhost' });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-tak-enroll-'));
  const adminKey = { pfxFile: path.join(workDir, 'Falcon6.pfx'), password: 'Falcon6' };
  await writeFile(adminKey.pfxFile, (await firstAdmin(service, 'Falcon6')).pfx);
  const memberKey = { pfxFile: path.join(workDir, 'Scout6.pfx'), password: 'Scout6' };
  await writeFile(memberKey.pfxFile, await approvedMember(service, adminKey, 'Scout6'));
  caPem = await readFile(service.rootCaFile, 'utf8');
  undoPolicy = await allowCertificateSelection(service.mtlsOrigin);
  member = await browserWithKey(service.rootCaFile, memberKey);
  admin = await browserWithKey(service.rootCaFile, adminKey);
});

afterAll(async () => {
  await member.close();
  await admin.close();
  await undoPolicy();
  await service.stop();
  await rm(workDir, { recursive: true, force: true });
});

function open(
  keyed: KeyedBrowser,
  url: string,
  device: BrowserContextOptions,
  extra: BrowserContextOptions = {},
): Promise<Page> {
  return openWithKey(keyed, `${service.mtlsOrigin}${url}`, { ...device, ...extra });
}

/** Does the mTLS face take this certificate and key as a valid member? */
function mtlsStatus(cert: string, key: string): Promise<number> {
  const host = `mtls.portal.localhost`;
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: service.port,
        servername: host,
        path: '/api/v1/check-auth/validuser',
        headers: { host: `${host}:${String(service.port)}` },
        ca: caPem,
        cert,
        key,
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          resolve(response.statusCode ?? 0);
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('Connect ATAK or iTAK', () => {
  it('the code on the member home enrolls a TAK client, whose own key then opens the mTLS face', async () => {
    const page = await open(member, '/app/users/Scout6', PHONE);
    const card = page.locator('section', {
      has: page.getByRole('heading', { name: 'Connect ATAK or iTAK' }),
    });
    await card.getByRole('button', { name: 'Show my code' }).click();
    const tokenText = card.getByTestId('tak-enroll-token');
    await expect.poll(() => tokenText.innerText()).toMatch(/^[A-Z0-9]{12}$/);
    const username = (await card.getByTestId('tak-enroll-username').innerText()).trim();
    const token = (await tokenText.innerText()).trim();
    expect(username).toBe('Scout6');
    expect(await card.getByRole('img', { name: 'QR code for ATAK' }).count()).toBe(1);
    expect(await card.getByRole('img', { name: 'QR code for iTAK' }).count()).toBe(1);
    const link = await card.getByRole('link', { name: /Open in ATAK/ }).getAttribute('href');
    expect(link).toBe(`tak://com.atakmap.app/enroll?host=localhost&username=Scout6&token=${token}`);
    await keepScreenshot(page, 'tak-enroll-card-phone');
    await page.context().close();

    const outcome = await enrollWithNodeTak({
      url: `https://localhost:${String(service.takEnrollPort)}`,
      caFile: service.rootCaFile,
      username,
      token,
    });
    if ('error' in outcome) throw new Error(`node-tak refused: ${outcome.error.message}`);
    expect(new X509Certificate(outcome.credentials.cert).subject).toContain('CN=Scout6');
    expect(await mtlsStatus(outcome.credentials.cert, outcome.credentials.key)).toBe(200);
  });

  it('an admin shows a member’s enrollment QR from the user dialog', async () => {
    const page = await open(admin, '/app/admin/user-management', DESKTOP);
    await page.getByRole('button', { name: 'Scout6' }).first().click();
    await page.getByRole('button', { name: 'Enrollment QR' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enrollment QR for Scout6' });
    await expect.poll(() => dialog.getByTestId('tak-enroll-token').count()).toBe(1);
    expect(await dialog.getByTestId('tak-enroll-username').innerText()).toBe('Scout6');
    await keepScreenshot(page, 'tak-enroll-admin-dialog-desktop');
    await page.context().close();
  });
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('on a %s', (name, device) => {
  it.each(['en', 'fi'] as const)(
    'the card with a code passes the accessibility check (%s)',
    async (language) => {
      const context = await member.browser.newContext({ ...device, bypassCSP: true });
      await context.addInitScript((lng) => {
        localStorage.setItem('i18nextLng', lng);
      }, language);
      const page = await context.newPage();
      await page.goto(`${service.mtlsOrigin}/app/users/Scout6`, { waitUntil: 'networkidle' });
      const show = language === 'fi' ? 'Näytä koodini' : 'Show my code';
      await page.getByRole('button', { name: show }).click();
      await expect.poll(() => page.getByTestId('tak-enroll-token').count()).toBe(1);
      await keepScreenshot(page, `tak-enroll-card-${language}-${name}`);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await context.close();
    },
  );
});
