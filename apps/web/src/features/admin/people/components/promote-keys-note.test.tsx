import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, type KeyEntry } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { adminKeys } from '../../shared/api/query-keys';
import { PromoteKeysNote } from './promote-keys-note';

listenWithMockApi();

const DAY = 86_400_000;
const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();

function entry(serial: string, more: Partial<KeyEntry> = {}): KeyEntry {
  return {
    serial,
    purpose: 'tak-enroll',
    issued_at: at(-3),
    expires_at: at(200),
    revoked_at: null,
    client_uid: `ANDROID-${serial}`,
    current: false,
    made_by: null,
    last_checked_at: null,
    ...more,
  };
}

function memberKeys(keys: KeyEntry[]) {
  server.use(
    http.get(`${API_PREFIX}/people/:callsign/keys`, () =>
      HttpResponse.json({ keys, last_seen_tak_at: null, renew_ca_by: null }),
    ),
  );
}

describe('what promotion says of keys another admin’s code made', () => {
  it('names the live ones: they stay member keys', async () => {
    memberKeys([
      entry('0a', { made_by: 'Charlie1' }),
      entry('0b', { made_by: 'Golf1' }),
      entry('0c'),
      entry('0d', { made_by: 'Charlie1', revoked_at: at(-1) }),
      entry('0e', { made_by: 'Xray1' }),
    ]);
    renderWithProviders(<PromoteKeysNote callsign="Xray1" />);
    const note = await screen.findByText(/of Xray1's keys were made through another admin's code/);
    expect(note).toHaveTextContent(/^2 of Xray1's keys/);
    expect(note).toHaveTextContent('device ANDROID-0a');
    expect(note).toHaveTextContent('device ANDROID-0b');
    expect(note).not.toHaveTextContent('ANDROID-0c');
    expect(note).not.toHaveTextContent('ANDROID-0d');
    expect(note).toHaveTextContent('they stay member keys and carry no admin power');
  });

  it('in Finnish too', async () => {
    memberKeys([entry('0a', { made_by: 'Charlie1' })]);
    renderWithProviders(<PromoteKeysNote callsign="Xray1" />, { language: 'fi' });
    expect(
      await screen.findByText(/jää jäsenen avaimeksi eikä anna ylläpito-oikeuksia/),
    ).toHaveTextContent(/^1 jäsenen Xray1 avaimista/);
  });

  it('says nothing when every live key is the member’s own', async () => {
    memberKeys([entry('0c'), entry('0d', { made_by: 'Charlie1', revoked_at: at(-1) })]);
    const { client } = renderWithProviders(<PromoteKeysNote callsign="Xray1" />);
    await expect
      .poll(() => client.getQueryState(adminKeys.personKeys('Xray1'))?.status)
      .toBe('success');
    expect(screen.queryByText(/admin power/)).toBeNull();
  });
});
