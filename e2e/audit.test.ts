import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/api.js';
import { DESKTOP, keepScreenshot, PHONE } from './support/browser.js';
import { openKeyedPage, type KeyedBrowser } from './support/nss.js';
import { checkPage } from './support/checks.js';
import { firstAdminBrowser, type FirstAdminBrowser } from './support/first-admin-browser.js';
import { startService, type Service } from './support/service.js';

// The audit log and the TAK readiness as an admin uses them (docs/operations.md, issue 19 and 15):
// a thousand events made through the API, read page by page, filtered, exported as CSV and the
// CSV checked row by row against the API; screenshots on a phone and a desktop, in English and
// Finnish (test-results/screenshots/audit-*, admin-readiness-*).

const ADMIN = 'Auditor1';
const EVENTS = 1000;
let service: Service;
let keyed: KeyedBrowser;
let admin: FirstAdminBrowser;
let workDir: string;
let adminKey: { pfxFile: string; password: string };

interface Event {
  id: string;
  at: string;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: string;
  client_address: string | null;
  detail: unknown;
}

async function adminCall(method: string, urlPath: string, json?: unknown) {
  return call(service, method, urlPath, { key: adminKey, ...(json === undefined ? {} : { json }) });
}

/** Every event the API's filter selects, through its pages. */
async function listed(query: Record<string, string>): Promise<Event[]> {
  const events: Event[] = [];
  let before: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, limit: '500', ...(before ? { before } : {}) });
    const answer = await adminCall('GET', `/api/v1/admin/audit?${params.toString()}`);
    expect(answer.status).toBe(200);
    const page = answer.json() as { events: Event[]; next_before: string | null };
    events.push(...page.events);
    before = page.next_before;
  } while (before !== null);
  return events;
}

/** Runs `count` calls, `width` at a time. */
async function inParallel(count: number, width: number, work: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await work(index);
      }
    }),
  );
}

/** The audit log fills the way a busy week does: codes made, people enrolling, guesses. */
async function seed(): Promise<void> {
  const invites: string[] = [];
  await inParallel(20, 4, async () => {
    const created = await adminCall('POST', '/api/v1/enrollment/invitecode/create');
    invites.push((created.json() as { invite_code: string }).invite_code);
  });
  const enrollees: { callsign: string; approvecode: string }[] = [];
  await inParallel(120, 4, async (index) => {
    const callsign = `Walker${index}`;
    const answer = await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
      json: { callsign, invite_code: invites[index % invites.length] },
    });
    expect(answer.status).toBe(200);
    enrollees.push({
      callsign,
      approvecode: (answer.json() as { approvecode: string }).approvecode,
    });
  });
  await inParallel(enrollees.length, 4, async (index) => {
    const { callsign, approvecode } = enrollees[index]!;
    const answer =
      index % 3 === 0
        ? await adminCall('POST', '/api/v1/enrollment/lock', { callsign, lock_reason: 'unknown' })
        : await adminCall('POST', '/api/v1/enrollment/accept', { callsign, approvecode });
    expect(answer.status).toBe(200);
  });
  await inParallel(60, 4, async (index) => {
    await call(service, 'POST', '/api/v1/token/code/exchange', {
      json: { code: `WRONG${String(index).padStart(7, '0')}` },
    });
  });
  const sofar = (await listed({})).length;
  await inParallel(EVENTS - sofar, 4, async (index) => {
    const code = invites[index % invites.length]!;
    const toggle = index % 2 === 0 ? 'deactivate' : 'activate';
    const answer = await adminCall('PUT', `/api/v1/enrollment/invitecode/${toggle}`, {
      invite_code: code,
    });
    expect(answer.status).toBe(200);
  });
}

beforeAll(async () => {
  service = await startService({ PORTAL_RATE_LIMIT_FAILURES: '100000' });
  admin = await firstAdminBrowser(service, ADMIN);
  ({ keyed, key: adminKey, workDir } = admin);
  await seed();
});

afterAll(async () => {
  await admin.close();
  await service.stop();
});

/** A page of the admin's browser in `language`. */
function adminPage(device: BrowserContextOptions, urlPath: string, language = 'en') {
  return openKeyedPage(keyed, `${service.mtlsOrigin}${urlPath}`, device, language);
}

describe('the audit log with a thousand events', () => {
  it('holds at least a thousand events, each with the address it came from', async () => {
    const events = await listed({});
    expect(events.length).toBeGreaterThanOrEqual(EVENTS);
    const fromApi = events.filter((event) => event.actor !== 'first-start');
    // Only what the portal did by itself has no address: the server certificates of its faces
    // (the portal's and the TAK enrollment face's), issued at its first start.
    expect(fromApi.filter((event) => event.client_address === null).map((e) => e.action)).toEqual([
      'certificate.server',
      'certificate.server',
    ]);
  });

  it('pages, filters and exports the filtered range as CSV, row for row', async () => {
    const { page, context } = await adminPage(DESKTOP, '/app/admin/manageusers');
    await page.getByRole('link', { name: /^Audit log/ }).click();
    await page.waitForURL('**/app/admin/audit');
    const main = page.locator('main');
    await main.getByText('50 events shown').waitFor();
    await main.getByRole('button', { name: 'Load more' }).click();
    await main.getByText('100 events shown').waitFor();
    const table = main.getByRole('table');
    expect(await table.locator('tbody').count()).toBe(100);
    // Dense rows: an event (its row and its line of details) is about two lines of text high.
    const perEvent = ((await table.boundingBox())?.height ?? Infinity) / 100;
    expect(perEvent).toBeLessThan(64);
    await keepScreenshot(page, 'audit-desktop');
    await checkPage(page, 1280);

    // Who accepted or rejected, and only the invite codes they switched.
    await main.getByLabel('Who (callsign)').fill(ADMIN.toLowerCase());
    // The action is picked from the portal's own actions: a whole group, or one of them.
    const picker = main.getByLabel('Action', { exact: true });
    const groups = await picker
      .locator('optgroup')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('label')));
    expect(groups).toContain('Invite codes');
    expect(groups).toContain('Keys');
    await picker.selectOption({ label: 'Invite codes: all' });
    await main.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/actor=auditor1&action=invite$/);
    const expected = await listed({ actor: 'auditor1', action: 'invite' });
    expect(expected.length).toBeGreaterThan(500);
    await main.getByText('50 events shown').waitFor();
    const actions = await main
      .locator('tbody span[title]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('title')));
    expect(actions).toHaveLength(50);
    for (const action of actions) expect(action).toMatch(/^invite\./);
    // In words, not the stored names.
    expect(await main.locator('tbody').first().innerText()).toMatch(
      /Invite code (activated|deactivated)/,
    );

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      main.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^portal-audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const file = path.join(workDir, 'export.csv');
    await download.saveAs(file);
    const rows = parse<Record<string, string>>(await readFile(file), { bom: true, columns: true });
    expect(rows.map((row) => row.id)).toEqual(expected.map((event) => event.id));
    for (const [index, row] of rows.entries()) {
      const event = expected[index]!;
      expect(row).toEqual({
        id: event.id,
        time: event.at,
        actor: ADMIN,
        action: event.action,
        target: event.target,
        outcome: event.outcome,
        client_address: event.client_address,
        detail: event.detail === null ? '' : JSON.stringify(event.detail),
      });
    }

    // A range of days: today holds everything shown, tomorrow nothing.
    const today = await page.evaluate(() => {
      const now = new Date();
      const pad = (value: number) => String(value).padStart(2, '0');
      return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
    });
    await main.getByLabel('From (day)').fill(today);
    await main.getByLabel('To (day, included)').fill(today);
    await main.getByRole('button', { name: 'Filter', exact: true }).click();
    await main.getByText('50 events shown').waitFor();
    await keepScreenshot(page, 'audit-desktop-filtered');
    const tomorrow = await page.evaluate((day: string) => {
      const next = new Date(`${day}T12:00:00`);
      next.setDate(next.getDate() + 1);
      return next.toISOString().slice(0, 10);
    }, today);
    await main.getByLabel('From (day)').fill(tomorrow);
    await main.getByLabel('To (day, included)').fill(tomorrow);
    await main.getByRole('button', { name: 'Filter', exact: true }).click();
    await main.getByText('No events match the filters.').waitFor();
    await context.close();
  });

  it('fits a phone, in English and in Finnish', async () => {
    for (const [language, shown, loadMore] of [
      ['en', '50 events shown', 'Load more'],
      ['fi', '50 tapahtumaa näkyvissä', 'Lataa lisää'],
    ] as const) {
      const { page, context } = await adminPage(PHONE, '/app/admin/audit', language);
      const main = page.locator('main');
      await main.getByText(shown).waitFor();
      const file = await keepScreenshot(page, `audit-${language}-phone`);
      // What a phone shows first, the table's first rows, at its own size.
      await main.getByRole('table').scrollIntoViewIfNeeded();
      await page.screenshot({ path: file.replace(/\.png$/, '-screen.png') });
      await checkPage(page, 360);
      await main.getByRole('button', { name: loadMore }).click();
      await main.getByText(shown.replace('50', '100')).waitFor();
      await page.setViewportSize({ width: 360, height: 780 });
      await context.close();
      if (language === 'fi') {
        const desktop = await adminPage(DESKTOP, '/app/admin/audit?action=enrollment', 'fi');
        await desktop.page
          .locator('main')
          .getByText(/tapahtumaa näkyvissä/)
          .waitFor();
        await keepScreenshot(desktop.page, 'audit-fi-desktop');
        await desktop.context.close();
      }
    }
  });
});

describe('TAK readiness on the admin home', () => {
  it('shows the TAK server, truststore, CRL and tak-check, in both languages', async () => {
    for (const [language, device, heading, name] of [
      ['en', DESKTOP, 'TAK Server readiness', 'desktop'],
      ['en', PHONE, 'TAK Server readiness', 'phone'],
      ['fi', PHONE, 'TAK-palvelimen valmius', 'fi-phone'],
    ] as const) {
      const { page, context } = await adminPage(device, '/app/admin/', language);
      const card = page.getByRole('region', { name: heading });
      await card.getByText('tak.portal.localhost:8089').waitFor();
      const text = await card.innerText();
      expect(text).toContain(`http://portal.localhost:${service.port}/ca/crl.pem`);
      expect(text).toContain('npm run --silent portal -- tak-check --host tak.portal.localhost');
      expect(text).toMatch(/Issuing CA/);
      // Its accessibility and width: the admin home's sweep (admin.test.ts).
      await keepScreenshot(page, `admin-readiness-${name}`);
      await context.close();
    }
  });
});
