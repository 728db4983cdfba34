import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { API_PREFIX, apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { server } from '../../../../test/server';
import { listenWithMockApi } from '../../../../test/server';
import { MemberListPage } from './member-list-page';

listenWithMockApi();

const RECEIPT = {
  certificates_revoked: 2,
  crl: {
    number: '1764000000000',
    this_update: '2026-11-24T16:00:00.000Z',
    next_update: '2026-12-08T16:00:00.000Z',
    lists_revoked: 2,
  },
  newest_serial: '4f2a',
  ocsp: {
    status: 'revoked',
    revoked_at: '2026-11-24T16:00:00.000Z',
    produced_at: '2026-11-24T16:00:01.000Z',
  },
};

type Failure = { status: number; detail: string; reason?: string } | undefined;

/** A people list that the role changes and revocations really change; records every call. */
function fakePeople(
  initial: { callsign: string; roles: string[] }[],
  fail: { promote?: Failure; demote?: Failure; revoke?: Failure } = {},
) {
  let people = [...initial];
  const api = { listCalls: 0, calls: [] as string[] };
  const refuse = (failure: Failure) =>
    failure === undefined
      ? undefined
      : HttpResponse.json(
          { detail: failure.detail, reason: failure.reason },
          { status: failure.status },
        );
  server.use(
    // The dialog's Keys section (tested in user-keys-section.test.tsx).
    http.get(`${API_PREFIX}/people/:callsign/keys`, () =>
      HttpResponse.json({ keys: [], last_seen_tak_at: null, renew_ca_by: null }),
    ),
    http.get(apiPaths.peopleList, () => {
      api.listCalls += 1;
      return HttpResponse.json({ callsign_list: people });
    }),
    http.post(apiPaths.promote, async ({ request }) => {
      const { callsign } = (await request.json()) as { callsign: string };
      api.calls.push(`promote ${callsign}`);
      const refused = refuse(fail.promote);
      if (refused !== undefined) return refused;
      people = people.map((p) => (p.callsign === callsign ? { callsign, roles: ['admin'] } : p));
      return HttpResponse.json({ success: true, detail: 'Promoted' });
    }),
    http.post(apiPaths.demote, async ({ request }) => {
      const { callsign } = (await request.json()) as { callsign: string };
      api.calls.push(`demote ${callsign}`);
      const refused = refuse(fail.demote);
      if (refused !== undefined) return refused;
      people = people.map((p) => (p.callsign === callsign ? { callsign, roles: [] } : p));
      return HttpResponse.json({ success: true, detail: 'Demoted' });
    }),
    http.delete(`${API_PREFIX}/people/:callsign`, ({ params }) => {
      const callsign = String(params.callsign);
      api.calls.push(`revoke ${callsign}`);
      const refused = refuse(fail.revoke);
      if (refused !== undefined) return refused;
      people = people.filter((p) => p.callsign !== callsign);
      return HttpResponse.json({ success: true, invite_code: 'WALK2222', receipt: RECEIPT });
    }),
    http.get(apiPaths.groups, () => HttpResponse.json({ groups: [] })),
    http.get(`${API_PREFIX}/people/:callsign/groups`, ({ params }) =>
      HttpResponse.json({ callsign: params.callsign, groups: [] }),
    ),
    http.get(`${API_PREFIX}/people/:callsign/preset`, ({ params }) =>
      HttpResponse.json({ callsign: params.callsign, team: 'Cyan', role: 'Team Member' }),
    ),
    http.put(`${API_PREFIX}/people/:callsign/preset`, async ({ params, request }) => {
      const preset = (await request.json()) as { team: string; role: string };
      api.calls.push(`preset ${String(params.callsign)} ${preset.team} ${preset.role}`);
      return HttpResponse.json({ callsign: params.callsign, ...preset });
    }),
  );
  return api;
}

const TEAM = [
  { callsign: 'Boss1', roles: ['admin'] },
  { callsign: 'Ranger1', roles: [] },
  { callsign: 'Ranger2', roles: [] },
];

function group(name: RegExp) {
  return screen.getByRole('button', { name });
}

describe('MemberListPage', () => {
  it('shows members open and admins closed; an admin group opens on demand', async () => {
    fakePeople(TEAM);
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    expect(await screen.findByRole('button', { name: 'Ranger1' })).toBeInTheDocument();
    expect(group(/Members/)).toHaveAttribute('aria-expanded', 'true');
    expect(group(/Admins/)).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('button', { name: 'Boss1' })).not.toBeInTheDocument();
    await user.click(group(/Admins/));
    expect(screen.getByRole('button', { name: 'Boss1' })).toBeInTheDocument();
  });

  it('an answer that does not match the contract shows what is wrong with it', async () => {
    server.use(
      http.get(apiPaths.peopleList, () =>
        HttpResponse.json({ callsign_list: [{ callsign: 'Boss1', roles: 'admin' }] }),
      ),
    );
    renderWithProviders(<MemberListPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error: Unexpected answer to GET /api/v1/people/list: callsign_list.0.roles:',
    );
  });

  it('says there is nothing to list when there are no members', async () => {
    fakePeople([{ callsign: 'Boss1', roles: ['admin'] }]);
    renderWithProviders(<MemberListPage />);
    expect(await screen.findByText('Nothing to list.')).toBeInTheDocument();
  });

  it('promotes a member from their dialog; the list is refetched and shows them as admin', async () => {
    const api = fakePeople(TEAM);
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    await user.click(await screen.findByRole('button', { name: 'Ranger1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ranger1' });
    expect(within(dialog).getByRole('button', { name: 'Go back' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Revoke' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Demote to member' })).toBeNull();
    const before = api.listCalls;
    await user.click(within(dialog).getByRole('button', { name: 'Promote to admin' }));

    expect(await screen.findByText('Ranger1 is now an admin.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.calls).toEqual(['promote Ranger1']);
    await vi.waitFor(() => {
      expect(api.listCalls).toBeGreaterThan(before);
    });
    await vi.waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Ranger1' })).not.toBeInTheDocument();
    });
    expect(group(/Admins/)).toHaveTextContent('(2)');
  });

  it('sets a member’s TAK team and role from their dialog, apart from the other actions', async () => {
    const api = fakePeople(TEAM);
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    await user.click(await screen.findByRole('button', { name: 'Ranger2' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ranger2' });
    const team = await within(dialog).findByRole('combobox', { name: 'Team' });
    expect(team).toHaveValue('Cyan');
    const save = within(dialog).getByRole('button', { name: 'Save team and role' });
    expect(save).toBeDisabled();
    await user.selectOptions(team, 'Dark Blue');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Role' }), 'Medic');
    await user.click(save);

    expect(await within(dialog).findByText('Ranger2 is now Dark Blue · Medic.')).toBeVisible();
    expect(api.calls).toEqual(['preset Ranger2 Dark Blue Medic']);
    expect(screen.getByRole('dialog', { name: 'Ranger2' })).toBeInTheDocument();
  });

  it('shows the 409 for yourself or the last admin as a clear message and keeps the dialog', async () => {
    const api = fakePeople(TEAM, {
      demote: { status: 409, detail: 'You cannot demote yourself' },
    });
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    await user.click(await screen.findByRole('button', { name: /Admins/ }));
    await user.click(screen.getByRole('button', { name: 'Boss1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Boss1' });
    await user.click(within(dialog).getByRole('button', { name: 'Demote to member' }));

    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Demoting failed: You cannot revoke or demote yourself, and the last admin must stay an admin. (You cannot demote yourself)',
    );
    expect(api.calls).toEqual(['demote Boss1']);
    expect(screen.getByRole('dialog', { name: 'Boss1' })).toBeInTheDocument();
  });

  it('says the last admin’s 409 in Finnish from its reason, not in the server’s English', async () => {
    fakePeople(TEAM, {
      demote: { status: 409, detail: 'The last admin cannot be demoted', reason: 'last_admin' },
    });
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />, { language: 'fi' });
    await user.click(await screen.findByRole('button', { name: /Ylläpitäjät/ }));
    await user.click(screen.getByRole('button', { name: 'Boss1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Boss1' });
    await user.click(within(dialog).getByRole('button', { name: 'Alenna jäseneksi' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(
      'Alentaminen epäonnistui: Hän on viimeinen ylläpitäjä: ylennä ensin joku toinen ylläpitäjäksi',
    );
    expect(alert).not.toHaveTextContent('cannot');
  });

  it('revokes only after the warning that it cannot be undone; Go back there sends nothing', async () => {
    const api = fakePeople(TEAM);
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    await user.click(await screen.findByRole('button', { name: 'Ranger2' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke' }),
    );
    const warning = await screen.findByRole('dialog', { name: 'Revoke Ranger2?' });
    expect(warning).toHaveTextContent('This cannot be undone.');
    expect(within(warning).getByRole('button', { name: 'Go back' })).toHaveFocus();
    expect(api.calls).toEqual([]);

    await user.click(within(warning).getByRole('button', { name: 'Go back' }));
    const back = await screen.findByRole('dialog', { name: 'Ranger2' });
    expect(api.calls).toEqual([]);
    await user.click(within(back).getByRole('button', { name: 'Revoke' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Revoke Ranger2?' })).getByRole('button', {
        name: 'Revoke',
      }),
    );

    // The dialog ends with the receipt; closing it leaves the outcome on the page.
    const receipt = await screen.findByRole('dialog', { name: 'Ranger2 was revoked' });
    expect(receipt).toHaveTextContent('2 certificates revoked.');
    await user.click(within(receipt).getByRole('button', { name: 'Close' }));
    expect(await screen.findByText('Ranger2 was revoked.')).toBeInTheDocument();
    expect(api.calls).toEqual(['revoke Ranger2']);
    await vi.waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Ranger2' })).not.toBeInTheDocument();
    });
  });

  it('a refused revocation names the failure and the server reason', async () => {
    fakePeople(TEAM, { revoke: { status: 409, detail: 'You cannot revoke yourself' } });
    const user = userEvent.setup();
    renderWithProviders(<MemberListPage />);
    await user.click(await screen.findByRole('button', { name: /Admins/ }));
    await user.click(screen.getByRole('button', { name: 'Boss1' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke' }),
    );
    const warning = await screen.findByRole('dialog', { name: 'Revoke Boss1?' });
    await user.click(within(warning).getByRole('button', { name: 'Revoke' }));
    expect(await within(warning).findByRole('alert')).toHaveTextContent(
      /^Revoking failed: You cannot revoke or demote yourself.*\(You cannot revoke yourself\)$/,
    );
  });
});
