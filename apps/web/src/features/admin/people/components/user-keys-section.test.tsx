import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, type KeyEntry } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { UserKeysSection } from './user-keys-section';

listenWithMockApi();

const DAY = 86_400_000;
const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
const thisYear = new Date().getFullYear();
const ADMIN_REFUSAL =
  "Alpha1 is an admin, and no admin makes a key for another admin: demote them first, or the operator uses the CLI's admin-code";

function entry(serial: string, purpose: KeyEntry['purpose'], more: Partial<KeyEntry> = {}) {
  return {
    serial,
    purpose,
    issued_at: new Date(thisYear, 4, 3, 12).toISOString(),
    expires_at: at(200),
    revoked_at: null,
    client_uid: null,
    current: false,
    made_by: null,
    last_checked_at: null,
    ...more,
  } satisfies KeyEntry;
}

/** A member's keys as the server keeps them: revoking one really revokes it; calls recorded. */
function fakeKeys(keys: KeyEntry[]) {
  const calls: string[] = [];
  let list = [...keys];
  server.use(
    http.get(`${API_PREFIX}/people/:callsign/keys`, () =>
      HttpResponse.json({ keys: list, last_seen_tak_at: null, renew_ca_by: null }),
    ),
    http.delete(`${API_PREFIX}/people/:callsign/keys/:serial`, ({ params }) => {
      calls.push(`revoke ${String(params.callsign)} ${String(params.serial)}`);
      list = list.map((key) =>
        key.serial === params.serial ? { ...key, revoked_at: new Date().toISOString() } : key,
      );
      return HttpResponse.json({ success: true });
    }),
    http.post(`${API_PREFIX}/people/:callsign/renewal-code`, async ({ params, request }) => {
      const body = await request.text();
      calls.push(`renewal ${String(params.callsign)} ${body === '' ? '(no body)' : body}`);
      if (params.callsign === 'Alpha1') {
        return HttpResponse.json({ detail: ADMIN_REFUSAL }, { status: 409 });
      }
      if (params.callsign === 'Bravo2') {
        const detail = ADMIN_REFUSAL.replace('Alpha1', 'Bravo2');
        return HttpResponse.json({ detail, reason: 'admin_key_for_admin' }, { status: 409 });
      }
      const live = list.filter((key) => key.revoked_at === null && key.expires_at > at(0));
      const revoking = body !== '' && (JSON.parse(body) as { revoke_keys?: boolean }).revoke_keys;
      if (live.length > 0 && revoking !== true) {
        return HttpResponse.json({ detail: 'still holds working keys' }, { status: 409 });
      }
      list = list.map((key) =>
        live.includes(key) ? { ...key, revoked_at: new Date().toISOString() } : key,
      );
      return HttpResponse.json({
        renewal_code: 'RENEW234',
        expires_at: at(3),
        keys_revoked: live.length,
      });
    }),
  );
  return calls;
}

describe('the Keys section of the user dialog', () => {
  it('names each key in plain words; revoked and expired ones are folded away', async () => {
    fakeKeys([
      entry('0a', 'tak-enroll', { client_uid: 'ANDROID-42' }),
      entry('0b', 'tak-package'),
      entry('0c', 'browser'),
      entry('0d', 'browser', { revoked_at: at(-1) }),
      entry('0e', 'browser', { expires_at: at(-3) }),
    ]);
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    expect(await screen.findByText('TAK enrollment, device ANDROID-42, 3 May')).toBeInTheDocument();
    expect(screen.getByText('TAK package key, downloaded 3 May')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Revoke / })).toHaveLength(3);
    expect(screen.getByText('2 revoked or expired keys')).toBeInTheDocument();
  });

  it('revokes a key only after saying what stops working', async () => {
    const calls = fakeKeys([entry('0b', 'tak-package'), entry('0c', 'browser')]);
    const user = userEvent.setup();
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    const rows = await screen.findAllByRole('listitem');
    await user.click(within(rows[0]!).getByRole('button', { name: /^Revoke TAK package key/ }));
    const confirm = screen.getByRole('group', { name: 'Revoke this key?' });
    expect(confirm).toHaveTextContent('can no longer connect to the TAK server');
    await user.click(within(confirm).getByRole('button', { name: 'Keep the key' }));
    expect(calls).toEqual([]);

    await user.click(within(rows[0]!).getByRole('button', { name: /^Revoke TAK package key/ }));
    await user.click(screen.getByRole('button', { name: 'Revoke key' }));
    expect(await screen.findByText('1 revoked or expired key')).toBeInTheDocument();
    expect(calls).toEqual(['revoke Ranger1 0b']);
  });

  it('makes a renewal code and shows it as a code, a link and a QR code', async () => {
    const calls = fakeKeys([entry('0c', 'browser', { expires_at: at(-10) })]);
    const user = userEvent.setup();
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    expect(await screen.findByText('No key of this member works right now.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Make a renewal code' }));
    expect(await screen.findByText('RENEW234')).toBeInTheDocument();
    expect(screen.getByText('https://localhost:3000/login?code=RENEW234')).toBeInTheDocument();
    expect(
      screen.getByRole('img', { name: 'QR code of the renewal link for Ranger1' }),
    ).toBeInTheDocument();
    expect(screen.getByText(/^Works once, until/)).toBeInTheDocument();
    expect(calls).toEqual(['renewal Ranger1 (no body)']);
  });

  it('asks before a renewal code revokes working keys, naming how many stop working, and sends revoke_keys', async () => {
    const calls = fakeKeys([
      entry('0a', 'tak-enroll'),
      entry('0b', 'browser'),
      entry('0c', 'browser', { expires_at: at(-10) }),
    ]);
    const user = userEvent.setup();
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    await screen.findAllByRole('button', { name: /^Revoke / });
    await user.click(screen.getByRole('button', { name: 'Make a renewal code' }));
    const ask = screen.getByRole('group', { name: 'Revoke their keys?' });
    expect(ask).toHaveTextContent('their 2 keys stop working');
    await user.click(within(ask).getByRole('button', { name: 'Keep their keys' }));
    expect(calls).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Make a renewal code' }));
    await user.click(screen.getByRole('button', { name: 'Revoke 2 keys and make the code' }));
    expect(await screen.findByText('RENEW234')).toBeInTheDocument();
    expect(screen.getByText('2 keys were revoked.')).toBeInTheDocument();
    expect(calls).toEqual(['renewal Ranger1 {"revoke_keys":true}']);
    expect(await screen.findByText('No key of this member works right now.')).toBeInTheDocument();
  });

  it('shows why the server refuses a renewal code for an admin', async () => {
    fakeKeys([entry('0c', 'browser', { expires_at: at(-10) })]);
    const user = userEvent.setup();
    renderWithProviders(<UserKeysSection callsign="Alpha1" />);
    await screen.findByText('No key of this member works right now.');
    await user.click(screen.getByRole('button', { name: 'Make a renewal code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      `Making the code failed: ${ADMIN_REFUSAL}`,
    );
  });

  it('says the server’s reason in Finnish, not its English detail', async () => {
    fakeKeys([entry('0c', 'browser', { expires_at: at(-10) })]);
    const user = userEvent.setup();
    renderWithProviders(<UserKeysSection callsign="Bravo2" />, { language: 'fi' });
    await user.click(await screen.findByRole('button', { name: 'Luo uusimiskoodi' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Ylläpitäjä ei tee avainta toiselle ylläpitäjälle: alenna hänet ensin jäseneksi',
    );
    expect(alert).not.toHaveTextContent('no admin makes a key');
  });

  it('says which admin made the code a key came through', async () => {
    fakeKeys([entry('0a', 'tak-enroll', { made_by: 'Charlie1' }), entry('0b', 'browser')]);
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    const rows = await screen.findAllByRole('listitem');
    expect(rows[0]).toHaveTextContent('made by Charlie1 (through their code)');
    // A member key, whatever the member's role, and how an admin gets their own.
    expect(rows[0]).toHaveTextContent('A member key: made through another admin');
    expect(rows[0]).toHaveTextContent('with a key of their own');
    expect(rows[1]).not.toHaveTextContent('made by');
    expect(rows[1]).not.toHaveTextContent('A member key');
  });

  it('names the keys another admin’s code made in Finnish too', async () => {
    fakeKeys([entry('0a', 'tak-enroll', { made_by: 'Charlie1' })]);
    renderWithProviders(<UserKeysSection callsign="Ranger1" />, { language: 'fi' });
    const [row] = await screen.findAllByRole('listitem');
    expect(row).toHaveTextContent('Jäsenen avain');
    expect(row).not.toHaveTextContent('A member key');
  });

  it('says when and from where a TAK Server last checked a key', async () => {
    fakeKeys([
      entry('0a', 'tak-enroll', {
        last_checked_at: new Date(thisYear, 10, 20, 9, 30).toISOString(),
        last_checked_from: '10.0.0.5',
      }),
      entry('0b', 'browser', { last_checked_from: null }),
    ]);
    renderWithProviders(<UserKeysSection callsign="Ranger1" />);
    const rows = await screen.findAllByRole('listitem');
    expect(rows[0]).toHaveTextContent(/the TAK Server at 10\.0\.0\.5 last checked it 20 Nov \d{4}/);
    expect(rows[1]).not.toHaveTextContent('last checked');
  });
});
