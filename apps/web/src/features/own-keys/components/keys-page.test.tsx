import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { apiPaths, API_PREFIX, type KeyEntry } from '@callsign/contract';
import { reloadTo } from '../../../lib/navigation';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { KeysPage } from './keys-page';

listenWithMockApi();

const DAY = 86_400_000;
const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();

function entry(serial: string, purpose: KeyEntry['purpose'], more: Partial<KeyEntry> = {}) {
  return {
    serial,
    purpose,
    issued_at: at(-20),
    expires_at: at(200),
    revoked_at: null,
    client_uid: null,
    current: false,
    made_by: null,
    last_checked_at: null,
    ...more,
  } satisfies KeyEntry;
}

/** The member's keys as the server keeps them: a revocation sticks; revoked serials recorded. */
function fakeOwnKeys(keys: KeyEntry[]) {
  const revoked: string[] = [];
  let list = [...keys];
  server.use(
    http.get(apiPaths.myKeys, () =>
      HttpResponse.json({ keys: list, last_seen_tak_at: null, renew_ca_by: null }),
    ),
    http.delete(`${API_PREFIX}/me/keys/:serial`, ({ params }) => {
      revoked.push(String(params.serial));
      list = list.map((key) =>
        key.serial === params.serial ? { ...key, revoked_at: new Date().toISOString() } : key,
      );
      return HttpResponse.json({ success: true });
    }),
  );
  return revoked;
}

function renderPage() {
  renderWithProviders(<KeysPage callsign="Scout1" newKeyActions={null} />);
}

describe('Your keys', () => {
  it('says which admin made the code a key came through (a renewal code, an enrollment station)', async () => {
    fakeOwnKeys([
      entry('0a', 'browser', { current: true, made_by: 'Golf1' }),
      entry('0b', 'tak-enroll', { client_uid: 'ANDROID-42' }),
    ]);
    renderPage();
    const made = await screen.findByText('made by Golf1 (through their code)');
    expect(made.closest('li')).toHaveTextContent('This device');
    expect(screen.getAllByText(/^made by /)).toHaveLength(1);
    expect(screen.getAllByText(/^A member key: made through another admin's code/)).toHaveLength(1);
  });

  it('says when a TAK Server last checked a key', async () => {
    fakeOwnKeys([
      entry('0a', 'tak-package', { last_checked_at: new Date(2026, 10, 20, 9, 30).toISOString() }),
      entry('0b', 'browser', { current: true }),
    ]);
    renderPage();
    const checked = await screen.findByText(/^a TAK Server last checked it 20 Nov 2026/);
    expect(checked.closest('li')).not.toHaveTextContent('This device');
    expect(screen.getAllByText(/last checked it/)).toHaveLength(1);
  });

  it('revokes a lost device’s key after one confirmation naming what stops working', async () => {
    const revoked = fakeOwnKeys([
      entry('0a', 'browser', { current: true }),
      entry('0b', 'tak-enroll', { client_uid: 'ANDROID-42' }),
    ]);
    const user = userEvent.setup();
    renderPage();
    await user.click(
      await screen.findByRole('button', { name: /^Revoke TAK enrollment, device ANDROID-42/ }),
    );
    const dialog = screen.getByRole('dialog', { name: 'Revoke this key?' });
    expect(dialog).toHaveTextContent('The TAK app on device ANDROID-42 can no longer connect');
    await user.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    expect(await screen.findByRole('status')).toHaveTextContent('was revoked');
    expect(revoked).toEqual(['0b']);
    expect(reloadTo).not.toHaveBeenCalled();
  });

  it('lists the keys before the new-key actions, and tells two keys of one day apart', async () => {
    const morning = new Date(2026, 10, 20, 9, 5).toISOString();
    const evening = new Date(2026, 10, 20, 18, 40).toISOString();
    fakeOwnKeys([
      entry('5f3a0b11c2', 'browser', { issued_at: evening }),
      entry('5f3a0b9d7e', 'browser', { issued_at: morning, current: true }),
    ]);
    renderWithProviders(
      <KeysPage callsign="Scout1" newKeyActions={<button type="button">New key here</button>} />,
    );
    const list = await screen.findByRole('region', { name: 'Keys' });
    const newKey = screen.getByRole('region', { name: 'Get a new key' });
    expect(list.compareDocumentPosition(newKey) & Node.DOCUMENT_POSITION_FOLLOWING).not.toBe(0);

    const rows = await within(list).findAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining('made at 18:40, serial number ending 0B11C2'),
      expect.stringContaining('made at 09:05, serial number ending 0B9D7E'),
    ]);
    const buttons = within(list).getAllByRole('button', { name: /^Revoke Browser key/ });
    const names = buttons.map((button) => button.getAttribute('aria-label'));
    expect(new Set(names).size).toBe(2);
  });

  it('the key in use takes a second confirmation, then signs this browser out', async () => {
    vi.mocked(reloadTo).mockClear();
    const revoked = fakeOwnKeys([entry('0a', 'browser', { current: true })]);
    const user = userEvent.setup();
    renderPage();
    const revoke = await screen.findByRole('button', { name: /^Revoke Browser key/ });

    await user.click(revoke);
    await user.click(screen.getByRole('button', { name: 'Revoke key' }));
    const second = screen.getByRole('dialog', { name: 'This is the key you are using now' });
    await user.click(within(second).getByRole('button', { name: 'Keep the key' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(revoked).toEqual([]);

    await user.click(revoke);
    await user.click(screen.getByRole('button', { name: 'Revoke key' }));
    await user.click(screen.getByRole('button', { name: 'Revoke and sign out' }));
    await vi.waitFor(() => {
      expect(reloadTo).toHaveBeenCalledWith('https://localhost:3000/error?code=key_revoked');
    });
    expect(revoked).toEqual(['0a']);
  });
});
