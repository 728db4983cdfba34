import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { API_PREFIX, apiPaths } from '@callsign/contract';
import { paths } from '../../../../lib/paths';
import { waitLongerInThisFile } from '../../../../test/patient';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { MemberPage } from './member-page';
import { memberRow as row } from '../../../../test/member-row';

listenWithMockApi();
waitLongerInThisFile();

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

/** Members whose rows the role changes and revocations really change; records every call. */
function fakeMembers(fail: { promote?: Failure; demote?: Failure; revoke?: Failure } = {}) {
  const members = new Map(
    [row('Boss1', true), row('Boss2', true), row('Ranger1', false), row('Ranger2', false)].map(
      (m) => [m.callsign, m],
    ),
  );
  const api = { rowCalls: 0, calls: [] as string[] };
  const refuse = (failure: Failure) =>
    failure === undefined
      ? undefined
      : HttpResponse.json(
          { detail: failure.detail, reason: failure.reason },
          { status: failure.status },
        );
  const change = (action: 'promote' | 'demote', admin: boolean) =>
    http.post(apiPaths[action], async ({ request }) => {
      const { callsign } = (await request.json()) as { callsign: string };
      api.calls.push(`${action} ${callsign}`);
      const refused = refuse(fail[action]);
      if (refused !== undefined) return refused;
      const member = members.get(callsign);
      if (member !== undefined) members.set(callsign, { ...member, admin });
      return HttpResponse.json({ success: true, detail: 'Done' });
    });
  server.use(
    http.get(`${API_PREFIX}/admin/members/:callsign`, ({ params }) => {
      api.rowCalls += 1;
      return HttpResponse.json({ member: members.get(String(params.callsign)) });
    }),
    change('promote', true),
    change('demote', false),
    http.delete(`${API_PREFIX}/people/:callsign`, ({ params }) => {
      const callsign = String(params.callsign);
      api.calls.push(`revoke ${callsign}`);
      const refused = refuse(fail.revoke);
      if (refused !== undefined) return refused;
      const member = members.get(callsign);
      if (member !== undefined) members.set(callsign, { ...member, state: 'revoked' });
      return HttpResponse.json({ success: true, invite_code: 'WALK2222', receipt: RECEIPT });
    }),
    // The Keys section (tested in user-keys-section.test.tsx).
    http.get(`${API_PREFIX}/people/:callsign/keys`, () =>
      HttpResponse.json({ keys: [], last_seen_tak_at: null, renew_ca_by: null }),
    ),
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

/** The member's page as admin Boss1 sees it, with the app's TAK tool stood in for. */
function open(callsign: string, language = 'en') {
  return renderWithProviders(
    <Routes>
      <Route
        path={paths.admin.member.path}
        element={<MemberPage self="Boss1" tools={(member) => <p>TAK station for {member}</p>} />}
      />
      <Route path={paths.admin.people.path} element={<h1>The members table</h1>} />
    </Routes>,
    { path: paths.admin.member.href(callsign), language },
  );
}

const actions = () => screen.getByRole('region', { name: 'Actions' });

describe('MemberPage: the member actions', () => {
  it('says in the promote question which of the member’s keys stay member keys', async () => {
    fakeMembers();
    server.use(
      http.get(`${API_PREFIX}/people/:callsign/keys`, () =>
        HttpResponse.json({
          keys: [
            {
              serial: '0a',
              purpose: 'tak-enroll',
              issued_at: '2026-11-01T10:00:00.000Z',
              expires_at: '2099-11-01T10:00:00.000Z',
              revoked_at: null,
              client_uid: 'ANDROID-0a',
              current: false,
              made_by: 'Boss2',
              last_checked_at: null,
            },
          ],
          last_seen_tak_at: null,
          renew_ca_by: null,
        }),
      ),
    );
    const user = userEvent.setup();
    open('Ranger1');
    await user.click(await screen.findByRole('button', { name: 'Promote to admin' }));
    const ask = await screen.findByRole('dialog', { name: 'Make Ranger1 an admin?' });
    expect(
      await within(ask).findByText(/of Ranger1's keys was made through another admin's code/),
    ).toHaveTextContent(
      'device ANDROID-0a, 1 November): it stays a member key and carries no admin power',
    );
  });

  it('promotes a member after asking; the row is asked again and shows them as admin', async () => {
    const api = fakeMembers();
    const user = userEvent.setup();
    open('Ranger1');
    await user.click(await screen.findByRole('button', { name: 'Promote to admin' }));
    const ask = await screen.findByRole('dialog', { name: 'Make Ranger1 an admin?' });
    expect(api.calls).toEqual([]);
    const before = api.rowCalls;
    await user.click(within(ask).getByRole('button', { name: 'Make admin' }));

    expect(await screen.findByText('Ranger1 is now an admin.')).toBeInTheDocument();
    expect(api.calls).toEqual(['promote Ranger1']);
    await vi.waitFor(() => {
      expect(api.rowCalls).toBeGreaterThan(before);
    });
    expect(
      await within(actions()).findByRole('button', { name: 'Demote to member' }),
    ).toBeEnabled();
    expect(within(actions()).queryByRole('button', { name: 'Promote to admin' })).toBeNull();
  });

  it('sets a member’s TAK team and role, apart from the other actions', async () => {
    const api = fakeMembers();
    const user = userEvent.setup();
    open('Ranger2');
    const team = await screen.findByRole('combobox', { name: 'Team' });
    expect(team).toHaveValue('Cyan');
    const save = screen.getByRole('button', { name: 'Save team and role' });
    expect(save).toBeDisabled();
    await user.selectOptions(team, 'Dark Blue');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Role' }), 'Medic');
    await user.click(save);

    expect(await screen.findByText('Ranger2 is now Dark Blue · Medic.')).toBeVisible();
    expect(api.calls).toEqual(['preset Ranger2 Dark Blue Medic']);
  });

  it('shows the 409 for yourself or the last admin as a clear message', async () => {
    const api = fakeMembers({ demote: { status: 409, detail: 'You cannot demote yourself' } });
    const user = userEvent.setup();
    open('Boss2');
    await user.click(
      await within(await findActions()).findByRole('button', { name: 'Demote to member' }),
    );
    const ask = await screen.findByRole('dialog', { name: 'Demote Boss2 to member?' });
    await user.click(
      within(ask).getByRole('button', { name: 'Demote and deactivate their invite codes' }),
    );

    expect(
      await screen.findByText(
        'Demoting failed: You cannot revoke or demote yourself, and the last admin must stay an admin. (You cannot demote yourself)',
      ),
    ).toBeInTheDocument();
    expect(api.calls).toEqual(['demote Boss2']);
  });

  it('says the last admin’s 409 in Finnish from its reason, not in the server’s English', async () => {
    fakeMembers({
      promote: { status: 409, detail: 'The last admin cannot be demoted', reason: 'last_admin' },
    });
    const user = userEvent.setup();
    open('Ranger1', 'fi');
    await user.click(await screen.findByRole('button', { name: 'Ylennä ylläpitäjäksi' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', {
        name: 'Ylennä ylläpitäjäksi',
      }),
    );
    const said = await screen.findByText(/^Ylentäminen epäonnistui: Hän on viimeinen ylläpitäjä/);
    expect(said).not.toHaveTextContent('cannot');
  });

  it('revokes only after the warning that it cannot be undone; Go back there sends nothing', async () => {
    const api = fakeMembers();
    const user = userEvent.setup();
    open('Ranger2');
    await user.click(
      await within(await findActions()).findByRole('button', { name: 'Revoke member' }),
    );
    const warning = await screen.findByRole('dialog', { name: 'Revoke Ranger2?' });
    expect(warning).toHaveTextContent('This cannot be undone.');
    expect(within(warning).getByRole('button', { name: 'Go back' })).toHaveFocus();
    await user.click(within(warning).getByRole('button', { name: 'Go back' }));
    await vi.waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(api.calls).toEqual([]);

    await user.click(within(actions()).getByRole('button', { name: 'Revoke member' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Revoke Ranger2?' })).getByRole('button', {
        name: 'Revoke member',
      }),
    );
    // It ends with the receipt; closing it leads back to the members table.
    const receipt = await screen.findByRole('dialog', { name: 'Ranger2 was revoked' });
    expect(receipt).toHaveTextContent('2 certificates revoked.');
    expect(api.calls).toEqual(['revoke Ranger2']);
    await user.click(within(receipt).getByRole('button', { name: 'Close' }));
    expect(await screen.findByRole('heading', { name: 'The members table' })).toBeInTheDocument();
  });

  it('a refused revocation names the failure and the server reason', async () => {
    fakeMembers({ revoke: { status: 409, detail: 'You cannot revoke yourself' } });
    const user = userEvent.setup();
    open('Ranger1');
    await user.click(
      await within(await findActions()).findByRole('button', { name: 'Revoke member' }),
    );
    const warning = await screen.findByRole('dialog', { name: 'Revoke Ranger1?' });
    await user.click(within(warning).getByRole('button', { name: 'Revoke member' }));
    expect(
      await screen.findByText(
        /^Revoking failed: You cannot revoke or demote yourself.*\(You cannot revoke yourself\)$/,
      ),
    ).toBeInTheDocument();
  });

  it('on yourself demote and revoke are off, with the reason they point to', async () => {
    fakeMembers();
    open('Boss1');
    const region = await findActions();
    const note = within(region).getByText(/^This is you: you cannot demote or revoke yourself\./);
    for (const name of ['Demote to member', 'Revoke member']) {
      const button = within(region).getByRole('button', { name });
      expect(button).toBeDisabled();
      expect(button).toHaveAttribute('aria-describedby', note.id);
    }
  });
});

describe('MemberPage: codes for a member', () => {
  it('offers a member the renewal code and the app’s TAK station', async () => {
    fakeMembers();
    open('Ranger1');
    expect(await screen.findByRole('button', { name: 'Make a renewal code' })).toBeEnabled();
    expect(screen.getByText('TAK station for Ranger1')).toBeInTheDocument();
  });

  it('offers another admin neither, saying why before anything is sent', async () => {
    const api = fakeMembers();
    open('Boss2');
    await screen.findByRole('heading', { name: 'Keys' });
    expect(screen.queryByRole('button', { name: 'Make a renewal code' })).toBeNull();
    expect(screen.queryByText('TAK station for Boss2')).toBeNull();
    expect(
      screen.getAllByText(/^No admin makes a key for another admin: demote them first/),
    ).toHaveLength(2);
    expect(api.calls).toEqual([]);
  });

  it('offers them to yourself', async () => {
    fakeMembers();
    open('Boss1');
    expect(await screen.findByRole('button', { name: 'Make a renewal code' })).toBeEnabled();
    expect(screen.getByText('TAK station for Boss1')).toBeInTheDocument();
  });

  it('says why in Finnish for another admin', async () => {
    fakeMembers();
    open('Boss2', 'fi');
    expect(
      await screen.findAllByText(/^Ylläpitäjä ei tee avainta toiselle ylläpitäjälle/),
    ).toHaveLength(2);
  });
});

async function findActions() {
  return screen.findByRole('region', { name: 'Actions' });
}
