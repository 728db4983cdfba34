import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { downloadKey } from '../api/key-download';
import { CreateMtlsPage, keyNavigationUrl } from './create-mtls-page';

listenWithMockApi();

/** Catches the file the page saves: the object URL and the download name of the link. */
let saved: { name: string; href: string }[];
beforeEach(() => {
  saved = [];
  localStorage.setItem('token', 'member-token');
  URL.createObjectURL = vi.fn(() => 'blob:key');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    saved.push({ name: this.download, href: this.href });
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function keyEndpoint() {
  const calls: { url: string; auth: string | null }[] = [];
  server.use(
    http.get(`${apiPaths.keyDownload('')}:callsign`, ({ request }) => {
      calls.push({
        url: new URL(request.url).pathname,
        auth: request.headers.get('authorization'),
      });
      return new HttpResponse(new Uint8Array([0x30, 0x82]), {
        headers: { 'content-type': 'application/x-pkcs12' },
      });
    }),
  );
  return calls;
}

describe('key download', () => {
  it('saves the key as {callsign}.pfx, fetched with the Bearer token', async () => {
    const calls = keyEndpoint();
    await downloadKey('Alpha1');
    expect(saved).toEqual([{ name: 'Alpha1.pfx', href: 'blob:key' }]);
    expect(calls).toEqual([{ url: '/api/v1/enduserpfx/Alpha1', auth: 'Bearer member-token' }]);
  });

  it('throws "No JWT found" without a token', async () => {
    localStorage.removeItem('token');
    await expect(downloadKey('Alpha1')).rejects.toThrow('No JWT found');
  });

  it('shows the server detail, or the default text, when the download fails', async () => {
    server.use(
      http.get(`${apiPaths.keyDownload('')}:callsign`, () =>
        HttpResponse.json({ detail: 'Not approved' }, { status: 403 }),
      ),
    );
    await expect(downloadKey('Alpha1')).rejects.toThrow('Not approved');
    server.use(
      http.get(
        `${apiPaths.keyDownload('')}:callsign`,
        () => new HttpResponse(null, { status: 500 }),
      ),
    );
    await expect(downloadKey('Alpha1')).rejects.toThrow('Failed to get the certificate.');
  });

  it('the page button downloads {callsign}.pfx', async () => {
    const user = userEvent.setup();
    keyEndpoint();
    renderWithProviders(<CreateMtlsPage callsign="Alpha1" isAdmin={false} initialOs="Android" />);
    await user.click(screen.getByRole('button', { name: 'Download your key' }));
    await vi.waitFor(() => {
      expect(saved).toEqual([{ name: 'Alpha1.pfx', href: 'blob:key' }]);
    });
  });

  it('says why the sign-in gives no more keys in the reader’s language, from the server’s reason', async () => {
    server.use(
      http.get(`${apiPaths.keyDownload('')}:callsign`, () =>
        HttpResponse.json(
          {
            detail:
              'This sign-in no longer hands out keys: 24 hours have passed since your first key.',
            reason: 'enrollment_keys_ended',
          },
          { status: 403 },
        ),
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<CreateMtlsPage callsign="Alpha1" isAdmin={false} initialOs="Android" />, {
      language: 'fi',
    });
    await user.click(screen.getByRole('button', { name: 'Lataa avaimesi' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/ensimmäisestä avaimestasi on kulunut 24 tuntia/);
    expect(alert).toHaveTextContent('https://mtls.localhost');
    expect(alert).not.toHaveTextContent('hands out');
  });

  it('the button does nothing without a callsign', async () => {
    const user = userEvent.setup();
    const calls = keyEndpoint();
    renderWithProviders(<CreateMtlsPage callsign={null} isAdmin={false} initialOs="Android" />);
    await user.click(screen.getByRole('button', { name: 'Download your key' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual([]);
    expect(saved).toEqual([]);
  });

  it('defaults the OS chooser to the given platform and offers Linux too', () => {
    renderWithProviders(<CreateMtlsPage callsign="Alpha1" isAdmin={false} initialOs="iOS" />);
    expect(screen.getByRole('radio', { name: 'iOS' })).toBeChecked();
    expect(screen.getAllByRole('radio').map((radio) => radio.getAttribute('value'))).toEqual([
      'Windows',
      'MacOS',
      'Android',
      'iOS',
      'Linux',
    ]);
  });

  it('on Chromium on Linux, picks Linux and its guide, not Android', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36',
    );
    renderWithProviders(<CreateMtlsPage callsign="Alpha1" isAdmin={false} />);
    expect(screen.getByRole('radio', { name: 'Linux' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Android' })).not.toBeChecked();
    expect(await screen.findByRole('heading', { name: /Linux/ })).toBeInTheDocument();
  });

  it('speaks plain words: "Open the portal with your key", never "mTLS" or "Navigate"', () => {
    const { container } = renderWithProviders(
      <CreateMtlsPage callsign="Alpha1" isAdmin={false} initialOs="Windows" />,
    );
    expect(screen.getByRole('link', { name: 'Open the portal with your key' })).toHaveAttribute(
      'href',
      keyNavigationUrl(false, 'Alpha1'),
    );
    expect(container).not.toHaveTextContent(/mTLS|Navigate with/);
  });

  it('"Open the portal with your key" goes to the admin area or the member home on the mtls host', () => {
    expect(keyNavigationUrl(true, 'Boss', 'https://mtls.p.example')).toBe(
      'https://mtls.p.example/app/admin',
    );
    expect(keyNavigationUrl(false, 'Alpha1', 'https://mtls.p.example')).toBe(
      'https://mtls.p.example/app/users/Alpha1',
    );
  });
});
