import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { QRCodeSVG } from 'qrcode.react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takPaths, type TakEnrollmentTokenResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import type { Platform } from '../../../lib/platform';
import { formatCountdown, secondsLeft } from '../api/enrollment-token';
import { ConnectTakCard, type SettingsDownloadPlace } from './connect-tak-card';

listenWithMockApi();

/**
 * A token answer as the server gives it. `registration_qr` is filled by issue 28's server part;
 * here it is a fake of the §14 form, enough to see which value the card draws.
 */
function answer(token: string, trusted: boolean): TakEnrollmentTokenResponse {
  return {
    username: 'Alpha1',
    token,
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
    host: 'tak.demo.example',
    port: 8446,
    atak_uri: `tak://com.atakmap.app/enroll?host=tak.demo.example&username=Alpha1&token=${token}`,
    itak_qr: 'demo,tak.demo.example,8089,ssl',
    registration_qr: JSON.stringify({
      passphrase: 'false',
      type: 'registration',
      serverCredentials: { connectionString: 'tak.demo.example:8089:ssl' },
      userCredentials: { username: 'Alpha1', password: token },
    }),
    trusted_by_phones: trusted,
  };
}

function tokenEndpoint(tokens: string[], trusted: boolean) {
  let calls = 0;
  server.use(
    http.post(takPaths.enrollmentToken, () => {
      const token = tokens[Math.min(calls, tokens.length - 1)] ?? 'ABCDEFGHJKLM';
      calls += 1;
      return HttpResponse.json(answer(token, trusted));
    }),
  );
  return () => calls;
}

/** The trust package downloads asked for (path and query) and the files saved. */
function trustEndpoint() {
  const asked: string[] = [];
  server.use(
    http.get(takPaths.trustPackage, ({ request }) => {
      const url = new URL(request.url);
      asked.push(`${url.pathname}${url.search}`);
      return new HttpResponse(new Uint8Array([0x50, 0x4b]), {
        headers: {
          'content-type': 'application/zip',
          'content-disposition': 'attachment; filename="Alpha1_demo_trust.zip"',
        },
      });
    }),
  );
  return asked;
}

let saved: string[];
beforeEach(() => {
  saved = [];
  URL.createObjectURL = vi.fn(() => 'blob:trust');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    saved.push(this.download);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function showCode(
  platform: Platform,
  settingsDownload: SettingsDownloadPlace = 'below',
  language = 'en',
) {
  renderWithProviders(<ConnectTakCard platform={platform} settingsDownload={settingsDownload} />, {
    language,
  });
  await userEvent.click(
    screen.getByRole('button', { name: language === 'fi' ? 'Näytä koodini' : 'Show my code' }),
  );
  await screen.findByTestId('tak-enroll-token');
  return screen.getByTestId('tak-enroll-steps');
}

/** The steps' texts, in order, each cut to its first words. */
function stepOrder(steps: HTMLElement): string[] {
  return within(steps)
    .getAllByRole('listitem')
    .filter((item) => item.parentElement === steps)
    .map((item) => item.textContent.slice(0, 24));
}

/** Is `first` before `second` in the document? */
function before(first: Element, second: Element): boolean {
  return (first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
}

const PROMISE = /no file to download, no password to type/i;

describe('ConnectTakCard on an Android phone', () => {
  it('offers "Open in ATAK" and the code, no QR codes, and promises no file nor password where none is needed', async () => {
    const calls = tokenEndpoint(['ABCDEFGHJKLM'], true);
    const steps = await showCode('Android');

    expect(stepOrder(steps)).toEqual(['Install ATAK-CIV from Go', 'Tap "Open in ATAK": ATAK']);
    expect(screen.getByRole('link', { name: 'Open in ATAK (on this phone)' })).toHaveAttribute(
      'href',
      'tak://com.atakmap.app/enroll?host=tak.demo.example&username=Alpha1&token=ABCDEFGHJKLM',
    );
    expect(screen.getByTestId('tak-enroll-token')).toHaveTextContent('ABCDEFGHJKLM');
    expect(screen.getByTestId('tak-enroll-username')).toHaveTextContent('Alpha1');
    expect(screen.queryAllByRole('img')).toEqual([]);
    expect(screen.getByText(PROMISE)).toBeInTheDocument();
    expect(screen.queryByTestId('tak-enroll-trust')).toBeNull();
    expect(screen.getByText(/This code works once, for 1[45]:\d\d more\./)).toBeInTheDocument();
    expect(calls()).toBe(1);
  });

  it('puts the trust package first where phones need it, then the link or the code, and makes a new code', async () => {
    const calls = tokenEndpoint(['ABCDEFGHJKLM', 'NPQRSTUVWXYZ'], false);
    const asked = trustEndpoint();
    const steps = await showCode('Android');

    expect(stepOrder(steps)).toEqual([
      'Install ATAK-CIV from Go',
      'First: the trust package',
      'Once the trust package i',
    ]);
    const trust = screen.getByRole('button', { name: 'Download the trust package' });
    expect(before(trust, screen.getByRole('link', { name: /Open in ATAK/ }))).toBe(true);
    expect(before(trust, screen.getByTestId('tak-enroll-token'))).toBe(true);
    // The trust package is a file and ATAK asks for the code: nothing promises otherwise.
    expect(screen.queryByText(PROMISE)).toBeNull();

    await userEvent.click(trust);
    await vi.waitFor(() => {
      expect(saved).toEqual(['Alpha1_demo_trust.zip']);
    });
    expect(asked).toEqual([takPaths.trustPackage]);

    await userEvent.click(screen.getByRole('button', { name: 'New code' }));
    expect(await screen.findByText('NPQRSTUVWXYZ')).toBeInTheDocument();
    expect(calls()).toBe(2);
  });
});

describe('ConnectTakCard on an iPhone', () => {
  it('offers iTAK’s trust package, the registration QR beside the iTAK QR, and no ATAK link', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], false);
    const asked = trustEndpoint();
    const steps = await showCode('iOS');

    expect(stepOrder(steps)).toEqual([
      'Install iTAK from the Ap',
      'First: the trust package',
      'Once the trust package i',
    ]);
    expect(screen.queryByRole('link', { name: /Open in ATAK/ })).toBeNull();
    expect(screen.queryByRole('img', { name: 'QR code for ATAK' })).toBeNull();
    const registration = screen.getByRole('img', { name: 'QR code for TAK Tracker and TAKAware' });
    const itak = screen.getByRole('img', { name: 'QR code for iTAK' });
    expect(before(screen.getByTestId('tak-enroll-trust'), registration)).toBe(true);

    // Each QR code draws its own value: the registration form, and iTAK's four fields.
    const token = answer('ABCDEFGHJKLM', false);
    expect(registration.innerHTML).toBe(qrMarkup(token.registration_qr));
    expect(itak.innerHTML).toBe(qrMarkup(token.itak_qr));
    expect(registration.innerHTML).not.toBe(itak.innerHTML);

    await userEvent.click(screen.getByRole('button', { name: 'Download the trust package' }));
    await vi.waitFor(() => {
      expect(asked).toEqual([`${takPaths.trustPackage}?client=itak`]);
    });
  });
});

/** The inner markup QRCodeSVG draws for a value, as the card's QR codes are drawn. */
function qrMarkup(value: string): string {
  const { container, unmount } = render(
    <QRCodeSVG value={value} size={200} marginSize={2} role="img" aria-label="probe" />,
  );
  const markup = container.querySelector('svg')?.innerHTML ?? '';
  unmount();
  return markup;
}

describe.each(['Windows', 'Linux', 'MacOS'] as const)('ConnectTakCard on a laptop (%s)', (os) => {
  it('shows every QR code, the trust package for either phone, and never "Open in ATAK"', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], false);
    const asked = trustEndpoint();
    const steps = await showCode(os);

    expect(stepOrder(steps)).toEqual([
      'On the phone, install th',
      'First: the trust package',
      'Once the trust package i',
    ]);
    expect(screen.queryByRole('link', { name: /Open in ATAK/ })).toBeNull();
    const qrs = screen.getAllByRole('img').map((img) => img.getAttribute('aria-label'));
    expect(qrs).toEqual([
      'QR code: the trust package for ATAK',
      'QR code: the trust package for iTAK',
      'QR code for ATAK',
      'QR code for iTAK',
      'QR code for TAK Tracker and TAKAware',
    ]);
    // The trust package's codes: the unnamed package on the public face, for a phone's camera.
    const trustQr = (name: string) => screen.getByRole('img', { name }).innerHTML;
    expect(trustQr('QR code: the trust package for ATAK')).toBe(
      qrMarkup(`https://localhost:3000${takPaths.unnamedTrustPackage}`),
    );
    expect(trustQr('QR code: the trust package for iTAK')).toBe(
      qrMarkup(`https://localhost:3000${takPaths.unnamedTrustPackage}?client=itak`),
    );
    expect(
      before(
        screen.getByTestId('tak-enroll-trust'),
        screen.getByRole('img', { name: 'QR code for ATAK' }),
      ),
    ).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Trust package for iTAK' }));
    await userEvent.click(screen.getByRole('button', { name: 'Trust package for ATAK' }));
    await vi.waitFor(() => {
      expect(asked).toEqual([`${takPaths.trustPackage}?client=itak`, takPaths.trustPackage]);
    });
    expect(screen.queryByText(PROMISE)).toBeNull();
  });

  it('with a publicly trusted face: the QR codes, no trust step, and ATAK’s promise', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], true);
    const steps = await showCode(os);
    expect(stepOrder(steps)).toEqual(['On the phone, install th', "Scan your app's code wit"]);
    expect(screen.getAllByRole('img')).toHaveLength(3);
    expect(screen.getByText(PROMISE)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Open in ATAK/ })).toBeNull();
  });
});

describe('ConnectTakCard, wherever it is', () => {
  it('says what to check when a scan fails: the clock, the trust package where needed, the code, the admin', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], false);
    await showCode('Android');
    const help = screen.getByRole('region', { name: 'If the app says "Enrollment failed"' });
    const items = within(help)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items).toEqual([
      expect.stringMatching(/date and time are set automatically/),
      'The trust package was imported before the scan.',
      expect.stringMatching(/not used already and has not run out/),
      expect.stringMatching(/Ask your admin/),
    ]);
  });

  it('leaves the trust package out of that list where phones trust the face', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], true);
    await showCode('iOS');
    const help = screen.getByRole('region', { name: 'If the app says "Enrollment failed"' });
    expect(within(help).getAllByRole('listitem')).toHaveLength(3);
    expect(help).not.toHaveTextContent('trust package');
  });

  it.each([
    ['below', 'The TAK settings download below still works.'],
    ['above', 'The TAK settings download above still works.'],
  ] as const)('points to the TAK settings download %s it', (place, text) => {
    renderWithProviders(<ConnectTakCard platform="Android" settingsDownload={place} />);
    expect(screen.getByText(new RegExp(text))).toBeInTheDocument();
  });

  it('does not mention a TAK settings download on a page without one', () => {
    renderWithProviders(<ConnectTakCard platform="Android" settingsDownload="none" />);
    expect(screen.queryByText(/settings download/)).toBeNull();
  });

  it('reads in Finnish', async () => {
    tokenEndpoint(['ABCDEFGHJKLM'], true);
    await showCode('Android', 'below', 'fi');
    expect(screen.getByRole('link', { name: 'Avaa ATAKissa (tällä puhelimella)' })).toBeVisible();
    expect(
      screen.getByRole('region', { name: 'Jos sovellus ilmoittaa "Enrollment failed"' }),
    ).toBeInTheDocument();
  });

  it('says why when no code can be made', async () => {
    server.use(
      http.post(takPaths.enrollmentToken, () =>
        HttpResponse.json({ detail: 'Not a valid user' }, { status: 403 }),
      ),
    );
    renderWithProviders(<ConnectTakCard platform="Android" settingsDownload="below" />);
    await userEvent.click(screen.getByRole('button', { name: 'Show my code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not make a code.');
  });
});

describe('the count-down', () => {
  it('counts whole seconds down to zero and writes m:ss', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(secondsLeft('2026-01-01T00:15:00Z', now)).toBe(900);
    expect(secondsLeft('2026-01-01T00:00:00.200Z', now)).toBe(1);
    expect(secondsLeft('2025-12-31T23:59:00Z', now)).toBe(0);
    expect(formatCountdown(900)).toBe('15:00');
    expect(formatCountdown(61)).toBe('1:01');
    expect(formatCountdown(0)).toBe('0:00');
  });
});
