import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Route, Routes } from 'react-router';
import { API_PREFIX, apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { server } from '../../../test/server';
import { listenWithMockApi } from '../../../test/server';
import { CodeListPage } from './code-list-page';
import { InviteQrPage, inviteLink } from './invite-qr-page';

listenWithMockApi();

/** enrollment/pools backed by a list that create, (de)activate and delete really change. */
function fakeCodes(initial: { invitecode: string; active: boolean }[]) {
  let pools = [...initial];
  const calls: string[] = [];
  const toggle =
    (active: boolean) =>
    async ({ request }: { request: Request }) => {
      const { invite_code: code } = (await request.json()) as { invite_code: string };
      calls.push(`${active ? 'activate' : 'deactivate'} ${code}`);
      pools = pools.map((p) => (p.invitecode === code ? { invitecode: code, active } : p));
      return HttpResponse.json({ success: true });
    };
  server.use(
    http.get(apiPaths.pools, () =>
      HttpResponse.json({
        pools: pools.map((p) => ({ ...p, created: '2026-01-01T00:00:00.000Z', owner_cs: 'Boss1' })),
      }),
    ),
    http.post(apiPaths.createInvite, () => {
      calls.push('create');
      pools = [...pools, { invitecode: 'NEWC2345', active: true }];
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

  it('Create new code makes a code and goes to its QR page', async () => {
    const calls = fakeCodes([]);
    const user = userEvent.setup();
    renderList();
    expect(await screen.findByText('No invite codes yet.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create new code' }));
    expect(await screen.findByRole('img', { name: /invite link for code NEWC2345/ })).toBeVisible();
    expect(calls).toEqual(['create']);
    expect(screen.getByText(inviteLink('NEWC2345'))).toBeInTheDocument();
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
