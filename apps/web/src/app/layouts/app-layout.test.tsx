import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { AuthProvider } from '../../features/auth/components/auth-provider';
import { authKeys } from '../../features/auth/api/sign-in';
import { reloadTo } from '../../lib/navigation';
import { renderWithProviders } from '../../test/render';
import { listenWithMockApi, server } from '../../test/server';
import { AppLayout } from './app-layout';

listenWithMockApi();

/** The public face's frame around a page, signed in by the stored enrollment token. */
function renderPublicFace(language = 'en') {
  const identity = { type: 'jwt', userid: 'Kilo1', payload: { scope: 'enrollment' } };
  server.use(
    http.get(apiPaths.checkAuthAny, () => HttpResponse.json(identity)),
    http.get(apiPaths.checkAuthValidUser, () => HttpResponse.json(identity)),
    http.get(apiPaths.checkAuthAdmin, () => HttpResponse.json({ detail: 'no' }, { status: 403 })),
    http.get(apiPaths.healthcheck, () =>
      HttpResponse.json({ healthcheck: 'success', dns: 'x', version: '1', deployment: 'Field' }),
    ),
  );
  return renderWithProviders(
    <AuthProvider>
      <Routes>
        <Route element={<AppLayout />}>
          <Route path="/login/createmtls" element={<p>Download your key</p>} />
        </Route>
      </Routes>
    </AuthProvider>,
    { path: '/login/createmtls', language },
  );
}

function storeSession() {
  localStorage.setItem('token', 'enrollment-jwt');
  localStorage.setItem('callsign', 'Kilo1');
  localStorage.setItem('approveCode', 'APPROVE2');
}

describe('signing out on a shared device', () => {
  it('forgets every stored token and the cached identity, then opens /login afresh', async () => {
    const user = userEvent.setup();
    storeSession();
    const endedTokens: (string | null)[] = [];
    server.use(
      http.post(apiPaths.signOut, ({ request }) => {
        endedTokens.push(request.headers.get('authorization'));
        return HttpResponse.json({ success: true });
      }),
    );
    const { client } = renderPublicFace();
    await screen.findByText('Download your key');
    expect(client.getQueryData(authKeys.signIn())).toMatchObject({ callsign: 'Kilo1' });

    await user.click(screen.getByRole('button', { name: 'Sign out on this device' }));

    for (const key of ['token', 'callsign', 'approveCode']) {
      expect(localStorage.getItem(key), key).toBeNull();
    }
    expect(client.getQueryData(authKeys.signIn())).toBeUndefined();
    expect(reloadTo).toHaveBeenCalledWith('/login');
    // The token is ended on the server too, so a copy of it stops working.
    await vi.waitFor(() => {
      expect(endedTokens).toEqual(['Bearer enrollment-jwt']);
    });
  });

  it('is offered in Finnish too', async () => {
    storeSession();
    renderPublicFace('fi');
    expect(
      await screen.findByRole('button', { name: 'Kirjaudu ulos tältä laitteelta' }),
    ).toBeInTheDocument();
  });

  it('sits in the header, beside the deployment’s one name (its branding, not the host’s label)', async () => {
    storeSession();
    renderPublicFace();
    const header = await screen.findByRole('banner');
    const button = await within(header).findByRole('button', { name: 'Sign out on this device' });
    expect(button).toHaveTextContent(/^Sign out$/);
    expect(header).toHaveTextContent('Callsign Portal');
    // The health check's `deployment` (the host's first label by default) is not the brand.
    expect(header).not.toHaveTextContent('Field');
    expect(screen.getAllByRole('button', { name: /sign out/i })).toHaveLength(1);
  });

  it('is not offered when no token is stored', async () => {
    server.use(
      http.get(apiPaths.checkAuthAny, () => HttpResponse.json({ detail: 'no' }, { status: 403 })),
    );
    renderPublicFace();
    await screen.findByText('Download your key');
    expect(screen.queryByRole('button', { name: /sign out/i })).not.toBeInTheDocument();
  });
});
