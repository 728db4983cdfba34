import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { MembersPage } from './members-page';
import { memberRow as row } from '../../../../test/member-row';

listenWithMockApi();

function answer(members: unknown[]) {
  server.use(http.get(apiPaths.members, () => HttpResponse.json({ members, next: null })));
}

describe('MembersPage', () => {
  it('lists admins and members alike, each a link to their page, admins marked', async () => {
    answer([row('Boss1', true), row('Ranger1', false)]);
    renderWithProviders(<MembersPage />);
    const table = await screen.findByRole('table', { name: 'Members' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    const [, boss, ranger] = rows as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(boss).getByRole('link', { name: 'Boss1' })).toHaveAttribute(
      'href',
      '/app/admin/people/Boss1',
    );
    expect(within(boss).getByText('admin')).toBeInTheDocument();
    expect(within(ranger).getByRole('link', { name: 'Ranger1' })).toBeInTheDocument();
    expect(within(ranger).queryByText('admin')).toBeNull();
  });

  it('an answer that does not match the contract shows what is wrong with it', async () => {
    answer([{ ...row('Boss1', true), admin: 'yes' }]);
    renderWithProviders(<MembersPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error: Unexpected answer to GET /api/v1/admin/members?sort=callsign: members.0.admin:',
    );
  });

  it('says there is nothing to list when there are no members', async () => {
    answer([]);
    renderWithProviders(<MembersPage />);
    expect(await screen.findByText('Nothing to list.')).toBeInTheDocument();
  });
});
