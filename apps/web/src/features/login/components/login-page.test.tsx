import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { Route, Routes } from 'react-router';
import { apiPaths } from '@callsign/contract';
import { reloadTo } from '../../../lib/navigation';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { LoginPage } from './login-page';
import { useLoginSession } from './login-session';

listenWithMockApi();

/**
 * Answers the two code checks, and the exchange a code that neither accepts goes to (only the
 * renewal codes given sign in); records which codes were asked about and which were exchanged.
 */
const exchanged: string[] = [];

function codeChecks(adminCodes: string[], inviteCodes: string[], renewalCodes: string[] = []) {
  const asked: string[] = [];
  exchanged.length = 0;
  server.use(
    http.post(apiPaths.exchangeCode, async ({ request }) => {
      const { code } = (await request.json()) as { code: string };
      exchanged.push(code);
      return renewalCodes.includes(code)
        ? HttpResponse.json({ jwt: `jwt-for-${code}` })
        : HttpResponse.json({ detail: 'Unknown, used or expired code' }, { status: 403 });
    }),
    http.get(apiPaths.checkAdminCode, ({ request }) => {
      const code = new URL(request.url).searchParams.get('temp_admin_code') ?? '';
      asked.push(code);
      return HttpResponse.json({ code_ok: adminCodes.includes(code) });
    }),
    http.get(apiPaths.checkInviteCode, ({ request }) => {
      const code = new URL(request.url).searchParams.get('invitecode') ?? '';
      return HttpResponse.json({ invitecode_is_active: inviteCodes.includes(code) });
    }),
  );
  return asked;
}

function CallsignStub() {
  const session = useLoginSession();
  return (
    <p>
      callsign step: {session.code} {session.codeType} {String(session.otpVerified)}
    </p>
  );
}

function renderLogin(path: string, language = 'en') {
  return renderWithProviders(
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="/login/callsign" element={<CallsignStub />} />
    </Routes>,
    { path, language },
  );
}

describe('LoginPage', () => {
  it('upper-cases the code as it is typed and shows no validation before submit', async () => {
    const user = userEvent.setup();
    codeChecks([], []);
    renderLogin('/login');
    const input = screen.getByLabelText('One-time code');
    await user.type(input, 'abc1');
    expect(input).toHaveValue('ABC1');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The code is wrong');
  });

  it('says the code is required when submitted empty', async () => {
    const user = userEvent.setup();
    renderLogin('/login');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Enter the code you were given.');
  });

  it('prefills ?code= upper-cased and submits it at once when valid', async () => {
    const asked = codeChecks([], ['INVITE23']);
    renderLogin('/login?code=invite23');
    expect(await screen.findByText('callsign step: INVITE23 user true')).toBeInTheDocument();
    expect(asked).toEqual(['INVITE23']);
  });

  it('an admin code from the URL verifies as an admin code', async () => {
    codeChecks(['ADMINCODE234'], []);
    renderLogin('/login?code=admincode234');
    expect(await screen.findByText('callsign step: ADMINCODE234 admin true')).toBeInTheDocument();
  });

  it('validates a code from the URL on mount and does not submit an invalid one', async () => {
    const asked = codeChecks([], []);
    renderLogin('/login?code=ab-1');
    expect(screen.getByLabelText('One-time code')).toHaveValue('AB-1');
    expect(screen.getByRole('alert')).toHaveTextContent('The code is wrong');
    expect(screen.getByRole('button', { name: 'Continue' })).toBeDisabled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toEqual([]);
  });

  it('shows "code is wrong" when neither check accepts the code, nor is it a renewal code', async () => {
    const user = userEvent.setup();
    codeChecks([], []);
    renderLogin('/login');
    await user.type(screen.getByLabelText('One-time code'), 'wrongcode');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The code is wrong');
    expect(exchanged).toEqual(['WRONGCODE']);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it.each([
    ['deactivated', 'An admin has switched this code off. Ask your admin for a new code.'],
    ['expired', 'This code has expired. Ask your admin for a new code.'],
    ['used-up', 'This code has already been used as many times as it allows.'],
  ] as const)(
    'a %s invite code says so and what to do, not "code is wrong"',
    async (state, text) => {
      const user = userEvent.setup();
      codeChecks([], []);
      server.use(
        http.get(apiPaths.checkInviteCode, () =>
          HttpResponse.json({ invitecode_is_active: false, invitecode_state: state }),
        ),
      );
      renderLogin('/login');
      await user.type(screen.getByLabelText('One-time code'), 'OLDCODE2');
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent(text);
      expect(alert).not.toHaveTextContent('The code is wrong');
    },
  );

  it('exchanges only a code that neither check accepts: an invite code is never spent', async () => {
    const user = userEvent.setup();
    codeChecks([], ['INVITE23'], ['INVITE23']);
    renderLogin('/login');
    await user.type(screen.getByLabelText('One-time code'), 'invite23');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('callsign step: INVITE23 user true')).toBeInTheDocument();
    expect(exchanged).toEqual([]);
  });

  it('a renewal code from the link signs the member in and goes on to the key page', async () => {
    vi.mocked(reloadTo).mockClear();
    localStorage.setItem('callsign', 'Stale1');
    localStorage.setItem('approveCode', 'OLDCODE2');
    try {
      codeChecks([], [], ['RENEW234']);
      renderLogin('/login?code=renew234');
      await waitFor(() => {
        expect(reloadTo).toHaveBeenCalledWith('/login/createmtls');
      });
      expect(exchanged).toEqual(['RENEW234']);
      expect(localStorage.getItem('token')).toBe('jwt-for-RENEW234');
      // Whatever an earlier sign-in left behind is gone: the server says who this is.
      expect(localStorage.getItem('callsign')).toBeNull();
      expect(localStorage.getItem('approveCode')).toBeNull();
    } finally {
      localStorage.clear();
    }
  });

  it('shows the server detail when a check fails', async () => {
    const user = userEvent.setup();
    server.use(
      http.get(apiPaths.checkAdminCode, () =>
        HttpResponse.json({ detail: 'Database unreachable' }, { status: 503 }),
      ),
      http.get(apiPaths.checkInviteCode, () => HttpResponse.json({ invitecode_is_active: false })),
    );
    renderLogin('/login');
    await user.type(screen.getByLabelText('One-time code'), 'ABCDEFGH');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => {
      expect(screen.getByRole('alert')).toHaveTextContent('Database unreachable');
    });
  });

  it.each([
    ['en', 300, 'Too many wrong attempts from this network. Try again in 5 minutes.'],
    ['en', 45, 'Too many wrong attempts from this network. Try again in 1 minute.'],
    [
      'fi',
      599,
      'Tästä verkosta on tullut liian monta väärää yritystä. Yritä uudelleen 10 minuutin kuluttua.',
    ],
  ])('a 429 says in %s how long to wait, from Retry-After: %i', async (language, seconds, text) => {
    const user = userEvent.setup();
    const tooMany = () =>
      HttpResponse.json(
        { detail: 'Too many attempts; try again later' },
        { status: 429, headers: { 'Retry-After': String(seconds) } },
      );
    server.use(
      http.get(apiPaths.checkAdminCode, tooMany),
      http.get(apiPaths.checkInviteCode, tooMany),
    );
    renderLogin('/login', language);
    await user.type(screen.getByRole('textbox'), 'ABCDEFGH');
    await user.click(
      screen.getByRole('button', { name: language === 'en' ? 'Continue' : 'Jatka' }),
    );
    await waitFor(() => {
      expect(screen.getByRole('alert')).toHaveTextContent(text);
    });
  });

  it('links "I have keys" to the admin app on the mtls host', () => {
    renderLogin('/login');
    expect(screen.getByRole('link', { name: 'I already have a key' })).toHaveAttribute(
      'href',
      `https://mtls.${window.location.host}/app/admin/`,
    );
  });
});
