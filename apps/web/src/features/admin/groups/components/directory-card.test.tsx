import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths, type DirectoryStatusResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { DirectoryCard } from './directory-card';

listenWithMockApi();

const HELD = {
  dn: 'cn=tak_ops,ou=groups,ou=callsign-portal,dc=unit,dc=example',
  error: 'The groups "ops" and "ops " are one group to LDAP',
};

function answer(status: Partial<DirectoryStatusResponse>) {
  server.use(
    http.get(apiPaths.directory, () =>
      HttpResponse.json({
        configured: true,
        url: 'ldaps://ldap.unit.example',
        base_dn: 'ou=callsign-portal,dc=unit,dc=example',
        in_sync: false,
        last_sync: null,
        last_error: `1 entry not written: ${HELD.dn}: ${HELD.error}`,
        pending: 0,
        entry_errors: [HELD],
        ...status,
      }),
    ),
  );
}

describe('DirectoryCard', () => {
  it.each([
    ['en', 'Entries not written (the rest was):'],
    ['fi', 'Kirjoittamatta jääneet merkinnät (muut kirjoitettiin):'],
  ])('names each entry the last sync could not write (%s)', async (language, heading) => {
    answer({});
    renderWithProviders(<DirectoryCard />, { language });
    expect(await screen.findByText(heading)).toBeVisible();
    expect(screen.getByRole('listitem')).toHaveTextContent(`${HELD.dn}: ${HELD.error}`);
  });

  it('lists no entries when every one was written', async () => {
    answer({ in_sync: true, last_error: null, entry_errors: [] });
    renderWithProviders(<DirectoryCard />);
    expect(await screen.findByText('In sync with ldaps://ldap.unit.example')).toBeVisible();
    expect(screen.queryByText('Entries not written (the rest was):')).toBeNull();
  });
});
