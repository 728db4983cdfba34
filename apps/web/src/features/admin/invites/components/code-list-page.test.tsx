import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Route, Routes } from 'react-router';
import { API_PREFIX, apiPaths, type PoolsResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { server } from '../../../../test/server';
import { listenWithMockApi } from '../../../../test/server';
import { CodeListPage } from './code-list-page';
import { InviteQrPage, inviteLink } from './invite-qr-page';

listenWithMockApi();

type Pool = PoolsResponse['pools'][number];

/** A pools entry as the server lists a plain code, with `fields` over it. */
function pool(fields: Partial<Pool> & Pick<Pool, 'invitecode' | 'active'>): Pool {
  return {
    created: '2026-01-01T00:00:00.000Z',
    owner_cs: 'Boss1',
    state: fields.active ? 'active' : 'deactivated',
    label: null,
    expires_at: null,
    max_uses: null,
    uses: 0,
    auto_approve: false,
    team: null,
    role: null,
    reserved_callsign: null,
    batch_id: null,
    groups: [],
    ...fields,
  };
}

/** enrollment/pools backed by a list that create, (de)activate and delete really change. */
function fakeCodes(initial: (Partial<Pool> & Pick<Pool, 'invitecode' | 'active'>)[]) {
  let pools = initial.map(pool);
  const calls: string[] = [];
  const toggle =
    (active: boolean) =>
    async ({ request }: { request: Request }) => {
      const { invite_code: code } = (await request.json()) as { invite_code: string };
      calls.push(`${active ? 'activate' : 'deactivate'} ${code}`);
      pools = pools.map((p) =>
        p.invitecode === code ? { ...p, active, state: active ? 'active' : 'deactivated' } : p,
      );
      return HttpResponse.json({ success: true });
    };
  server.use(
    http.get(apiPaths.pools, () => HttpResponse.json({ pools })),
    http.post(apiPaths.createInvite, async ({ request }) => {
      const text = await request.text();
      calls.push(text === '' ? 'create' : `create ${text}`);
      pools = [...pools, pool({ invitecode: 'NEWC2345', active: true })];
      return HttpResponse.json({ invite_code: 'NEWC2345' });
    }),
    http.put(apiPaths.deactivateInvite, toggle(false)),
    http.put(apiPaths.activateInvite, toggle(true)),
    http.delete(`${API_PREFIX}/enrollment/invitecode/:code`, ({ params }) => {
      calls.push(`delete ${String(params.code)}`);
      pools = pools.filter((p) => p.invitecode !== params.code);
      return HttpResponse.json({ success: true, invite_code: params.code });
    }),
  );
  return calls;
}

function renderList() {
  return renderWithProviders(
    <Routes>
      <Route path="/app/admin/user-management/code-list" element={<CodeListPage />} />
      <Route path="/app/admin/user-management/code-list/:inviteCode" element={<InviteQrPage />} />
    </Routes>,
    { path: '/app/admin/user-management/code-list' },
  );
}

function row(code: string): HTMLElement {
  const item = screen.getByText(code).closest('li');
  if (item === null) throw new Error(`no row for ${code}`);
  return item;
}

async function choose(code: string, item: string) {
  const user = userEvent.setup();
  await user.click(screen.getByRole('button', { name: `Actions for code ${code}` }));
  await user.click(await screen.findByRole('menuitem', { name: item }));
  return user;
}

describe('CodeListPage', () => {
  it('lists each code with its state and a search-like input', async () => {
    fakeCodes([
      { invitecode: 'AAAA2345', active: true },
      { invitecode: 'BBBB2345', active: false },
    ]);
    renderList();
    expect(await screen.findByText('AAAA2345')).toBeInTheDocument();
    expect(within(row('AAAA2345')).getByText('active', { exact: true })).toBeVisible();
    expect(within(row('BBBB2345')).getByText('deactivated', { exact: true })).toBeVisible();
    expect(screen.getByRole('searchbox', { name: 'Search codes' })).toBeInTheDocument();
  });

  it('Create new code makes a safe code (7 days, 25 people) and goes to its QR page', async () => {
    const calls = fakeCodes([]);
    const user = userEvent.setup();
    renderList();
    expect(await screen.findByText('No invite codes yet.')).toBeInTheDocument();
    expect(
      screen.getByText(
        'A new code works for 7 days and admits up to 25 people. For other limits, or none, use Create with options.',
      ),
    ).toBeVisible();
    const before = Date.now();
    await user.click(screen.getByRole('button', { name: 'Create new code' }));
    expect(await screen.findByRole('img', { name: /invite link for code NEWC2345/ })).toBeVisible();
    expect(calls).toHaveLength(1);
    const body = JSON.parse(calls[0]!.slice('create '.length)) as Record<string, unknown>;
    expect(body.max_uses).toBe(25);
    const expires = Date.parse(String(body.expires_at)) - before;
    expect(expires).toBeGreaterThanOrEqual(7 * 86_400_000);
    expect(expires).toBeLessThan(7 * 86_400_000 + 60_000);
    expect(screen.getByText(inviteLink('NEWC2345'))).toBeInTheDocument();
  });

  it('shows each code’s label, uses, expiry and preset; a batch’s slips only as its batch', async () => {
    fakeCodes([
      {
        invitecode: 'AAAA2345',
        active: true,
        label: 'Exercise North',
        uses: 3,
        max_uses: 10,
        expires_at: '2026-03-01T12:00:00.000Z',
        team: 'Red',
        role: 'Medic',
        auto_approve: true,
      },
      { invitecode: 'BBBB2345', active: true, uses: 4, max_uses: 4, state: 'used-up' },
      { invitecode: 'CCCC2345', active: true, uses: 1, state: 'expired' },
      // A label an older portal stored: its override would turn the rest around on screen.
      { invitecode: 'DDDD2345', active: true, uses: 0, label: 'Team A\u202epng.exe' },
      ...['Alpha1', 'Bravo2'].map((callsign, index) =>
        pool({
          invitecode: `SLIP${index}234`,
          active: true,
          uses: index,
          max_uses: 1,
          reserved_callsign: callsign,
          batch_id: 'batch-1',
        }),
      ),
    ]);
    renderList();
    expect(await screen.findByText('Exercise North')).toBeInTheDocument();
    const first = row('AAAA2345');
    expect(first).toHaveTextContent('3 / 10 used');
    expect(first).toHaveTextContent(/valid until/);
    expect(first).toHaveTextContent('Red · Medic');
    expect(first).toHaveTextContent('approves at once');
    expect(within(row('BBBB2345')).getByText('used up', { exact: true })).toBeVisible();
    expect(within(row('CCCC2345')).getByText('expired', { exact: true })).toBeVisible();
    expect(row('CCCC2345')).toHaveTextContent('1 use');
    expect(within(row('DDDD2345')).getByText('Team A⟨U+202E⟩png.exe')).toBeVisible();
    expect(screen.queryByText('SLIP0234')).not.toBeInTheDocument();
    const batch = screen.getByRole('link', { name: /Batch of/ });
    expect(batch).toHaveTextContent('2 slips, 1 used');
    expect(batch).toHaveAttribute('href', '/app/admin/user-management/bulk/batch-1');
  });

  it('Create with options sends them, then goes to the new code’s QR page', async () => {
    const calls = fakeCodes([]);
    const user = userEvent.setup();
    renderList();
    await user.click(await screen.findByRole('button', { name: 'Create with options' }));
    const dialog = await screen.findByRole('dialog', { name: 'New invite code with options' });
    // The safe defaults are filled in: 25 people, until a week from now (local time).
    expect(within(dialog).getByRole('spinbutton', { name: 'Most members' })).toHaveValue(25);
    const expiry = within(dialog).getByLabelText('Valid until');
    const filled = new Date((expiry as HTMLInputElement).value).getTime() - Date.now();
    expect(Math.abs(filled - 7 * 86_400_000)).toBeLessThan(2 * 60_000);
    await user.clear(expiry);
    await user.type(within(dialog).getByRole('textbox', { name: 'Label' }), 'Convoy');
    await user.clear(within(dialog).getByRole('spinbutton', { name: 'Most members' }));
    await user.type(within(dialog).getByRole('spinbutton', { name: 'Most members' }), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Create code' }));
    expect(await within(dialog).findByText('A whole number, 1 or more.')).toBeVisible();
    expect(calls).toEqual([]);

    const uses = within(dialog).getByRole('spinbutton', { name: 'Most members' });
    await user.clear(uses);
    await user.type(uses, '12');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Team' }), 'Green');
    await user.click(within(dialog).getByRole('checkbox', { name: /Approve new members at once/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Create code' }));

    expect(await screen.findByRole('img', { name: /invite link for code NEWC2345/ })).toBeVisible();
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.slice('create '.length))).toEqual({
      label: 'Convoy',
      expires_at: null,
      max_uses: 12,
      auto_approve: true,
      team: 'Green',
      role: null,
    });
  });

  it('deactivates after the confirmation, then activates again; the list follows', async () => {
    const calls = fakeCodes([{ invitecode: 'AAAA2345', active: true }]);
    renderList();
    await screen.findByText('AAAA2345');
    let user = await choose('AAAA2345', 'Deactivate');
    const ask = await screen.findByRole('dialog', { name: 'Deactivate AAAA2345?' });
    expect(calls).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'Deactivate' }));
    expect(await screen.findByText('Code AAAA2345 was deactivated.')).toBeInTheDocument();
    expect(calls).toEqual(['deactivate AAAA2345']);
    await expect.poll(() => row('AAAA2345').textContent).toContain('deactivated');

    user = await choose('AAAA2345', 'Activate');
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Activate AAAA2345?' })).getByRole(
        'button',
        { name: 'Activate' },
      ),
    );
    expect(await screen.findByText('Code AAAA2345 was activated.')).toBeInTheDocument();
    expect(calls).toEqual(['deactivate AAAA2345', 'activate AAAA2345']);
    await expect.poll(() => row('AAAA2345').textContent).not.toContain('deactivated');
  });

  it('Cancel in the confirmation sends nothing; Delete after confirming removes the code', async () => {
    const calls = fakeCodes([{ invitecode: 'AAAA2345', active: true }]);
    renderList();
    await screen.findByText('AAAA2345');
    let user = await choose('AAAA2345', 'Delete');
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete AAAA2345?' })).getByRole('button', {
        name: 'Cancel',
      }),
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(calls).toEqual([]);

    user = await choose('AAAA2345', 'Delete');
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete AAAA2345?' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    expect(await screen.findByText('No invite codes yet.')).toBeInTheDocument();
    expect(calls).toEqual(['delete AAAA2345']);
  });

  it('Show QR code asks, then opens the code’s QR page', async () => {
    fakeCodes([{ invitecode: 'AAAA2345', active: true }]);
    renderList();
    await screen.findByText('AAAA2345');
    const user = await choose('AAAA2345', 'Show QR code');
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Show the QR code?' })).getByRole('button', {
        name: 'Show QR code',
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Invite code AAAA2345' })).toBeVisible();
  });
});

describe('the invite link', () => {
  it('is the public host with the port kept, without the mtls. prefix', () => {
    expect(inviteLink('ABCD2345', 'https://portal.example:8443')).toBe(
      'https://portal.example:8443/login?code=ABCD2345',
    );
    window.history.replaceState(null, '', '/');
    expect(inviteLink('ABCD2345')).toBe(`https://${window.location.host}/login?code=ABCD2345`);
  });
});
