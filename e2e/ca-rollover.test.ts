import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, keepScreenshot, PHONE } from './support/browser.js';
import { checkPage } from './support/checks.js';
import { firstAdminBrowser, type FirstAdminBrowser } from './support/first-admin-browser.js';
import { openKeyedPage } from './support/nss.js';
import { startService, type Service } from './support/service.js';

// The CA rollover as an admin sees it (docs/operations.md#rolling-the-issuing-ca-over): after `ca rollover begin` (the built CLI
// on the service's data directory), the admin home's CA card says a rollover is under way, how
// many members are still on the old issuing CA and what to do next, and the admin, whose own key
// is on the old CA, gets the banner with the date to renew by. On a phone and a laptop, in
// English and Finnish; screenshots ca-rollover-*.

const run = promisify(execFile);
const ADMIN = 'Chief1';
let service: Service;
let admin: FirstAdminBrowser;

beforeAll(async () => {
  service = await startService();
  admin = await firstAdminBrowser(service, ADMIN);
  const cli = path.join(import.meta.dirname, '..', 'apps', 'server', 'dist', 'cli.js');
  const begun = await run('node', [cli, 'ca', 'rollover', 'begin', '--renew-by', '2027-01-15'], {
    env: {
      ...process.env,
      PORTAL_DATA_DIR: service.dataDir,
      DATABASE_URL: '',
      PORTAL_LOG_LEVEL: 'silent',
    },
  });
  expect(begun.stdout).toMatch(/^Rollover begun: issuing CA 2/);
});

afterAll(async () => {
  await admin.close();
  await service.stop();
});

describe('a CA rollover on the admin home', () => {
  for (const [language, texts] of [
    [
      'en',
      {
        rollover: 'Rollover',
        overlap: /Rollover under way since .*: new keys come from issuing CA 2/,
        members: '1 member still holds a key of the old issuing CA.',
        banner: 'Get a new key by 15 January 2027',
      },
    ],
    [
      'fi',
      {
        rollover: 'Varmentajan vaihto',
        overlap: /Vaihto käynnissä .* alkaen: uudet avaimet myöntää nyt varmentaja 2/,
        members: '1 jäsenellä on yhä vanhan varmentajan avain.',
        banner: /^Hae uusi avain .*2027 mennessä$/,
      },
    ],
  ] as const) {
    for (const [deviceName, device, width] of [
      ['phone', PHONE, 360],
      ['laptop', DESKTOP, 1280],
    ] as const) {
      it(`in ${language} on a ${deviceName}: the state, the count, what next, and the banner`, async () => {
        const { page, context } = await openKeyedPage(
          admin.keyed,
          `${service.mtlsOrigin}/app/admin`,
          device,
          language,
        );
        const section = page.getByRole('region', { name: texts.rollover });
        await section.waitFor();
        await expect.poll(() => section.innerText()).toMatch(texts.overlap);
        await expect.poll(() => section.innerText()).toContain(texts.members);
        await page.getByRole('region', { name: texts.banner }).waitFor();
        await checkPage(page, width);
        const file = await keepScreenshot(page, `ca-rollover-admin-${language}-${deviceName}`);
        // The two parts alone, at full size, beside the whole page.
        await section.screenshot({ path: file.replace('-admin-', '-card-') });
        await page
          .getByRole('region', { name: texts.banner })
          .screenshot({ path: file.replace('-admin-', '-banner-') });
        await context.close();
      });
    }
  }
});
