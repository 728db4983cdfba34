import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takEnrollmentTokenResponseSchema, takPaths } from '@callsign/contract';
import { validUserStatus } from '../apps/server/test/support/mtls-status.js';
import { enrollWithNodeTak } from '../apps/server/test/support/node-tak-client.js';
import { approvedMember, call, firstAdmin } from './support/api.js';
import {
  ANDROID_PHONE,
  DESKTOP,
  IPHONE,
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
import { qrCodesIn } from './support/qr.js';
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
let adminJwt: string;
let adminKey: { pfxFile: string; password: string };

beforeAll(async () => {
  service = await startService({ TAK_HOST: 'localhost' });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-tak-enroll-'));
  adminKey = { pfxFile: path.join(workDir, 'Falcon6.pfx'), password: 'Falcon6' };
  const first = await firstAdmin(service, 'Falcon6');
  adminJwt = first.jwt;
  await writeFile(adminKey.pfxFile, first.pfx);
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
  return validUserStatus(
    { port: service.port, mtlsHost: 'mtls.portal.localhost', ca: caPem },
    cert,
    key,
  );
}

describe('Connect ATAK or iTAK', () => {
  it('the code on the member home enrolls a TAK client, whose own key then opens the mTLS face', async () => {
    const page = await open(member, '/app/users/Scout6', ANDROID_PHONE);
    const card = page.locator('section', {
      has: page.getByRole('heading', { name: 'Connect ATAK or iTAK' }),
    });
    await card.getByRole('button', { name: 'Show my code' }).click();
    const tokenText = card.getByTestId('tak-enroll-token');
    await expect.poll(() => tokenText.innerText()).toMatch(/^[A-Z0-9]{12}$/);
    const username = (await card.getByTestId('tak-enroll-username').innerText()).trim();
    const token = (await tokenText.innerText()).trim();
    expect(username).toBe('Scout6');
    // On the Android phone itself: the link that opens ATAK, no QR code to scan.
    expect(await card.getByRole('img').count()).toBe(0);
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

  it('an admin shows a member’s enrollment QR from the member page', async () => {
    const page = await open(admin, '/app/admin/people/Scout6', DESKTOP);
    await page.locator('main').getByRole('button', { name: 'Enrollment QR' }).click();
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
      await page.goto(`${service.mtlsOrigin}/app/users/Scout6`);
      const show = language === 'fi' ? 'Näytä koodini' : 'Show my code';
      await page.getByRole('button', { name: show }).click();
      await expect.poll(() => page.getByTestId('tak-enroll-token').count()).toBe(1);
      await keepScreenshot(page, `tak-enroll-card-${language}-${name}`);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await context.close();
    },
  );
});

// The TAK card follows the device (issue 31, issue 28): on an Android phone the trust package
// first (this portal's own CA: phones do not trust the enrollment face), then "Open in ATAK" and
// the code, no QR code; on an iPhone iTAK's trust package and the registration QR beside iTAK's;
// on a laptop (Chromium's own user agent: Linux) every QR code and never "Open in ATAK". The
// registration QR is read back from the rendered card with zbarimg. And Chromium on Linux gets
// the Linux key guide, not Android's.

const TEXT = {
  en: {
    title: 'Connect ATAK or iTAK',
    show: 'Show my code',
    trust: 'Download the trust package',
    open: 'Open in ATAK (on this phone)',
    atak: 'QR code for ATAK',
    itak: 'QR code for iTAK',
    registration: 'QR code for TAK Tracker and TAKAware',
    trustAtak: 'QR code: the trust package for ATAK',
    trustItak: 'QR code: the trust package for iTAK',
  },
  fi: {
    title: 'Yhdistä ATAK tai iTAK',
    show: 'Näytä koodini',
    trust: 'Lataa luottamuspaketti',
    open: 'Avaa ATAKissa (tällä puhelimella)',
    atak: 'QR-koodi ATAKille',
    itak: 'QR-koodi iTAKille',
    registration: 'QR-koodi TAK Trackerille ja TAKAwarelle',
    trustAtak: 'QR-koodi: luottamuspaketti ATAKille',
    trustItak: 'QR-koodi: luottamuspaketti iTAKille',
  },
} as const;

type Language = keyof typeof TEXT;

/** The member home in `language` on `device`, with a code made; the token answer as it came. */
async function cardWithCode(device: BrowserContextOptions, language: Language) {
  const context = await member.browser.newContext({
    ...device,
    bypassCSP: true,
    acceptDownloads: true,
  });
  await context.addInitScript((lng) => {
    localStorage.setItem('i18nextLng', lng);
  }, language);
  const page = await context.newPage();
  await page.goto(`${service.mtlsOrigin}/app/users/Scout6`);
  const text = TEXT[language];
  const card = page.locator('section', { has: page.getByRole('heading', { name: text.title }) });
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith(takPaths.enrollmentToken)),
    card.getByRole('button', { name: text.show }).click(),
  ]);
  const answer = takEnrollmentTokenResponseSchema.parse(await response.json());
  await expect.poll(() => card.getByTestId('tak-enroll-token').innerText()).toBe(answer.token);
  return { page, card, answer, text };
}

/** The top of an element on the page, to compare the order things are shown in. */
async function top(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  if (box === null) throw new Error('not shown');
  return box.y;
}

/** What zbarimg reads from a picture of `locator` (the QR code as the browser drew it). */
async function decodeQr(locator: Locator, name: string): Promise<string> {
  const file = path.join(workDir, `${name}.png`);
  await locator.screenshot({ path: file });
  return (await qrCodesIn(file)).join('\n');
}

/** Keeps the whole page and, to read at full size, the card alone; then the axe check. */
async function checkAndClose(page: Page, shot: string, card?: Locator) {
  const file = await keepScreenshot(page, shot);
  if (card !== undefined) await card.screenshot({ path: file.replace(/\.png$/, '-card.png') });
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await page.context().close();
}

describe.each(['en', 'fi'] as const)('the TAK card (%s)', (language) => {
  it('on an Android phone: the trust package, then "Open in ATAK", then the code; no QR code', async () => {
    const { page, card, answer, text } = await cardWithCode(ANDROID_PHONE, language);
    // This portal's own CA signs the enrollment face: phones need the trust package first.
    expect(answer.trusted_by_phones).toBe(false);
    const trust = card.getByRole('button', { name: text.trust });
    const open = card.getByRole('link', { name: text.open });
    expect(await open.getAttribute('href')).toBe(answer.atak_uri);
    const code = card.getByTestId('tak-enroll-token');
    expect(await top(trust)).toBeLessThan(await top(open));
    expect(await top(open)).toBeLessThan(await top(code));
    expect(await card.getByRole('img').count()).toBe(0);
    // A file and a typed code are needed here: nothing says otherwise.
    expect(await card.innerText()).not.toMatch(/no password to type|ei kirjoitettavaa salasanaa/i);
    await checkAndClose(page, `tak-card-android-${language}-phone`, card);
  });

  it('on an iPhone: iTAK’s trust package, then the registration QR beside iTAK’s; no ATAK link', async () => {
    const { page, card, answer, text } = await cardWithCode(IPHONE, language);
    expect(await card.getByRole('link', { name: text.open }).count()).toBe(0);
    expect(await card.getByRole('img', { name: text.atak }).count()).toBe(0);
    const registration = card.getByRole('img', { name: text.registration });
    const itak = card.getByRole('img', { name: text.itak });
    const trust = card.getByRole('button', { name: text.trust });
    expect(await top(trust)).toBeLessThan(await top(registration));
    expect(await decodeQr(itak, `itak-${language}`)).toBe(answer.itak_qr);

    // The registration QR read off the card is the answer's, in the form the iOS apps parse.
    const decoded = await decodeQr(registration, `registration-${language}`);
    expect(decoded).toBe(answer.registration_qr);
    expect(JSON.parse(decoded)).toEqual({
      passphrase: 'false',
      type: 'registration',
      // This file's portal runs with TAK_HOST=localhost (node-tak reaches the face by that name).
      serverCredentials: { connectionString: 'localhost:8089:ssl' },
      userCredentials: { username: 'Scout6', password: answer.token },
    });

    // The trust package in iTAK's flavour.
    const [request, download] = await Promise.all([
      page.waitForRequest((r) => r.url().includes(takPaths.trustPackage)),
      page.waitForEvent('download'),
      trust.click(),
    ]);
    expect(new URL(request.url()).search).toBe('?client=itak');
    expect(download.suggestedFilename()).toBe('Scout6_portal_trust_itak.zip');
    await checkAndClose(page, `tak-card-iphone-${language}`, card);
  });

  it('on a laptop: the trust package’s QR codes for either phone, then every QR code; never "Open in ATAK"', async () => {
    const { page, card, answer, text } = await cardWithCode(DESKTOP, language);
    expect(await card.getByRole('link', { name: /ATAK/ }).count()).toBe(0);
    const qrs = card.getByRole('img');
    expect(
      await qrs.evaluateAll((imgs) => imgs.map((img) => img.getAttribute('aria-label'))),
    ).toEqual([text.trustAtak, text.trustItak, text.atak, text.itak, text.registration]);
    expect(await top(card.getByRole('img', { name: text.trustAtak }))).toBeLessThan(
      await top(card.getByRole('img', { name: text.atak })),
    );
    // The trust package's QR code: an address a phone's camera opens, signed in nowhere.
    const trustUrl = await decodeQr(
      card.getByRole('img', { name: text.trustAtak }),
      `trust-${language}`,
    );
    expect(trustUrl).toBe(`${service.origin}${takPaths.unnamedTrustPackage}`);
    const trustZip = await call(service, 'GET', new URL(trustUrl).pathname);
    expect(trustZip.status).toBe(200);
    expect(trustZip.body.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(
      await decodeQr(card.getByRole('img', { name: text.trustItak }), `trust-itak-${language}`),
    ).toBe(`${service.origin}${takPaths.unnamedTrustPackage}?client=itak`);
    expect(await decodeQr(card.getByRole('img', { name: text.atak }), `atak-${language}`)).toBe(
      answer.atak_uri,
    );
    expect(
      await decodeQr(card.getByRole('img', { name: text.registration }), `laptop-${language}`),
    ).toBe(answer.registration_qr);
    await checkAndClose(page, `tak-card-laptop-${language}-desktop`, card);
  });
});

describe('Chromium on Linux', () => {
  it.each(['en', 'fi'] as const)(
    'is shown the Linux key guide, not Android’s, and the plain "Open the portal" link (%s)',
    async (language) => {
      const context = await member.browser.newContext({ ...DESKTOP, bypassCSP: true });
      await context.addInitScript(
        ([lng, jwt]) => {
          localStorage.setItem('i18nextLng', lng);
          localStorage.setItem('token', jwt);
          localStorage.setItem('callsign', 'Falcon6');
        },
        [language, adminJwt] as const,
      );
      const page = await context.newPage();
      expect(await page.evaluate(() => navigator.userAgent)).toMatch(/Linux/);
      await page.goto(`${service.origin}/login/createmtls`);
      const linux = page.getByRole('radio', { name: 'Linux' });
      await expect.poll(() => linux.isChecked()).toBe(true);
      expect(await page.getByRole('radio', { name: 'Android' }).isChecked()).toBe(false);
      const guide = language === 'fi' ? /Linux/ : 'Install your key on Linux';
      // The guide's texts (their own namespace) may come after the radio is set: seen missing.
      await expect.poll(() => page.getByRole('heading', { level: 2, name: guide }).count()).toBe(1);
      const open =
        language === 'fi' ? 'Avaa portaali avaimellasi' : 'Open the portal with your key';
      await expect.poll(() => page.getByRole('link', { name: open }).count()).toBe(1);
      expect(await page.locator('main').innerText()).not.toMatch(/mTLS|Navigate with/);
      await checkAndClose(page, `key-page-linux-${language}-desktop`);
    },
  );
});

/** A page of `keyed` in `language` on `device`, `url` loaded (wait for what you read). */
async function openIn(
  keyed: KeyedBrowser,
  url: string,
  device: BrowserContextOptions,
  language: Language,
  storage: Record<string, string> = {},
): Promise<Page> {
  const context = await keyed.browser.newContext({ ...device, bypassCSP: true });
  await context.addInitScript(
    ([lng, stored]) => {
      localStorage.setItem('i18nextLng', lng);
      for (const [name, value] of Object.entries(stored)) localStorage.setItem(name, value);
    },
    [language, storage] as const,
  );
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('issue 31’s other pages on a %s', (name, device) => {
  it.each(['en', 'fi'] as const)('read as they should (%s)', async (language) => {
    const fi = language === 'fi';
    // Waiting for approval: "moves on by itself" in plain sight.
    const invite = await call(service, 'POST', '/api/v1/enrollment/invitecode/create', {
      key: adminKey,
    });
    const callsign = `Wait${name === 'phone' ? 'P' : 'D'}${language}`;
    const enrolled = (await call(service, 'POST', '/api/v1/enrollment/invitecode/enroll', {
      json: { callsign, invite_code: (invite.json() as { invite_code: string }).invite_code },
    }).then((answer) => answer.json())) as { jwt: string; approvecode: string };
    const waiting = await openIn(member, `${service.origin}/login/enrollment`, device, language, {
      token: enrolled.jwt,
      callsign,
      approveCode: enrolled.approvecode,
    });
    const movesOn = fi ? /Sivu siirtyy eteenpäin itsestään/ : /This page moves on by itself/;
    await expect.poll(() => waiting.getByText(movesOn).isVisible()).toBe(true);
    await checkAndClose(waiting, `enrollment-waiting-${language}-${name}`);

    // Your keys: the list first, each key with its time and serial number's end.
    const keys = await openIn(member, `${service.mtlsOrigin}/app/keys`, device, language);
    const list = keys.getByRole('region', { name: fi ? 'Avaimet' : 'Keys', exact: true });
    await expect
      .poll(() => list.innerText())
      .toMatch(fi ? /tehty klo .*, sarjanumero päättyy/ : /made at .*, serial number ending/);
    const newKey = keys.getByRole('region', { name: fi ? 'Hae uusi avain' : 'Get a new key' });
    expect(await top(list)).toBeLessThan(await top(newKey));
    await checkAndClose(keys, `keys-page-${language}-${name}`);

    // The quickstart installs first, then connects.
    const quickstart = `${service.mtlsOrigin}/app/services/tak/quickstart`;
    const install = await openIn(member, `${quickstart}/android1`, device, language);
    await expect
      .poll(() => install.locator('main h1').innerText())
      .toBe(fi ? 'Asenna ATAK-CIV' : 'Install ATAK-CIV');
    await checkAndClose(install, `tak-quickstart-android1-${language}-${name}`);
    const connect = await openIn(member, `${quickstart}/android2`, device, language);
    await expect
      .poll(() => connect.locator('main h1').innerText())
      .toMatch(/^(Connect|Yhdistä) ATAK/);
    await checkAndClose(connect, `tak-quickstart-android2-${language}-${name}`);

    // An admin on a default install: no identity console link pointing nowhere.
    const areas = await openIn(
      admin,
      `${service.mtlsOrigin}/app/admin/manageusers`,
      device,
      language,
    );
    const none = fi
      ? /ei ole määritetty identiteetinhallinnan konsolia/
      : /No identity-management console is set up/;
    await expect.poll(() => areas.getByText(none).isVisible()).toBe(true);
    await checkAndClose(areas, `admin-manageusers-no-console-${language}-${name}`);
  });
});
