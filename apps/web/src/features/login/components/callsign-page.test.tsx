import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useEffect, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiPaths, INVITE_REFUSAL_DETAIL, RESERVED_CALLSIGN_DETAIL } from '@callsign/contract';
import { reloadTo } from '../../../lib/navigation';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { CallsignPage } from './callsign-page';
import { useLoginSession } from './login-session';

listenWithMockApi();
afterEach(() => {
  vi.mocked(reloadTo).mockClear();
});

function Verified({
  codeType,
  reserved,
  children,
}: {
  codeType: 'admin' | 'user';
  reserved?: string;
  children: ReactNode;
}) {
  const session = useLoginSession();
  const { verify } = session;
  useEffect(() => {
    verify('INVITE23', codeType, reserved);
  }, [verify, codeType, reserved]);
  return session.otpVerified ? children : null;
}

function renderCallsign(codeType: 'admin' | 'user' = 'user', reserved?: string, language = 'en') {
  return renderWithProviders(
    <Verified codeType={codeType} {...(reserved === undefined ? {} : { reserved })}>
      <CallsignPage />
    </Verified>,
    { path: '/login/callsign', language },
  );
}

describe('CallsignPage validation', () => {
  it.each([
    ['', 'Enter a callsign.'],
    ['ab', 'The callsign must be at least 3 characters long.'],
    ['a'.repeat(31), 'The callsign can be at most 30 characters long.'],
    ['ab-c', 'Use only letters A–Z and digits 0–9.'],
    ['Äiti', 'Use only letters A–Z and digits 0–9.'],
  ])('%j: %s', async (value, message) => {
    const user = userEvent.setup();
    renderCallsign();
    const input = await screen.findByLabelText('Callsign');
    if (value !== '') await user.type(input, value);
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('button', { name: /save callsign/i })).toBeDisabled();
  });

  it('accepts 3 to 30 letters and digits', async () => {
    const user = userEvent.setup();
    renderCallsign();
    await user.type(await screen.findByLabelText('Callsign'), 'Alpha1');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /save callsign/i })).toBeEnabled();
  });
});

describe('CallsignPage submit', () => {
  it('a member enrolls, stores token, approval code and callsign, then reloads to enrollment', async () => {
    const user = userEvent.setup();
    let body: unknown;
    server.use(
      http.post(apiPaths.enroll, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ jwt: 'token-1', approvecode: 'APPROVE2', callsign: 'Alpha1' });
      }),
    );
    renderCallsign('user');
    await user.type(await screen.findByLabelText('Callsign'), 'Alpha1');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    await vi.waitFor(() => {
      expect(reloadTo).toHaveBeenCalledWith('/login/enrollment');
    });
    expect(body).toEqual({ callsign: 'Alpha1', invite_code: 'INVITE23' });
    expect(localStorage.getItem('token')).toBe('token-1');
    expect(localStorage.getItem('approveCode')).toBe('APPROVE2');
    expect(localStorage.getItem('callsign')).toBe('Alpha1');
  });

  it('a bulk slip’s code comes with its callsign, filled in and fixed', async () => {
    const user = userEvent.setup();
    let body: unknown;
    server.use(
      http.post(apiPaths.enroll, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ jwt: 'token-2', approvecode: 'APPROVE3', callsign: 'Slip7' });
      }),
    );
    renderCallsign('user', 'Slip7');
    const input = await screen.findByLabelText('Callsign');
    expect(input).toHaveValue('Slip7');
    expect(input).toHaveAttribute('readonly');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    await vi.waitFor(() => {
      expect(reloadTo).toHaveBeenCalledWith('/login/enrollment');
    });
    expect(body).toEqual({ callsign: 'Slip7', invite_code: 'INVITE23' });
  });

  it('an admin exchanges, adds the admin, exchanges again, then reloads to the key page', async () => {
    const user = userEvent.setup();
    const exchanged: unknown[] = [];
    let addAdminAuth: string | null = null;
    server.use(
      http.post(apiPaths.exchangeCode, async ({ request }) => {
        const payload = (await request.json()) as { code: string };
        exchanged.push(payload.code);
        return HttpResponse.json({ jwt: payload.code === 'INVITE23' ? 'first' : 'final' });
      }),
      http.post(apiPaths.addAdmin, ({ request }) => {
        addAdminAuth = request.headers.get('authorization');
        return HttpResponse.json({ admin_added: true, jwt_exchange_code: 'EXCHANGE2345' });
      }),
    );
    renderCallsign('admin');
    await user.type(await screen.findByLabelText('Callsign'), 'Boss');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    await vi.waitFor(() => {
      expect(reloadTo).toHaveBeenCalledWith('/login/createmtls');
    });
    expect(exchanged).toEqual(['INVITE23', 'EXCHANGE2345']);
    expect(addAdminAuth).toBe('Bearer first');
    expect(localStorage.getItem('token')).toBe('final');
    expect(localStorage.getItem('callsign')).toBe('Boss');
  });

  it('an admin whose first callsign is taken can try another with the same code', async () => {
    const user = userEvent.setup();
    const exchanged: string[] = [];
    server.use(
      http.post(apiPaths.exchangeCode, async ({ request }) => {
        const payload = (await request.json()) as { code: string };
        exchanged.push(payload.code);
        return HttpResponse.json({ jwt: payload.code === 'INVITE23' ? 'first' : 'final' });
      }),
      http.post(apiPaths.addAdmin, async ({ request }) => {
        const payload = (await request.json()) as { callsign: string };
        return payload.callsign === 'Taken'
          ? HttpResponse.json({ detail: 'Callsign taken' }, { status: 400 })
          : HttpResponse.json({ admin_added: true, jwt_exchange_code: 'EXCHANGE2345' });
      }),
    );
    renderCallsign('admin');
    const input = await screen.findByLabelText('Callsign');
    await user.type(input, 'Taken');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    expect(await screen.findByRole('alert')).toHaveTextContent('already in use');
    await user.clear(input);
    await user.type(input, 'Boss');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    await vi.waitFor(() => {
      expect(reloadTo).toHaveBeenCalledWith('/login/createmtls');
    });
    expect(exchanged).toEqual(['INVITE23', 'EXCHANGE2345']);
  });

  it.each([
    [
      'en',
      'This callsign is reserved for the TAK server or the portal itself. Choose another one.',
    ],
    ['fi', 'Kutsumerkki on varattu TAK-palvelimelle tai portaalille itselleen. Valitse toinen.'],
  ])(
    'a reserved callsign is refused with its own text (%s), for a member',
    async (language, text) => {
      const user = userEvent.setup();
      server.use(
        http.post(apiPaths.enroll, () =>
          HttpResponse.json({ detail: RESERVED_CALLSIGN_DETAIL }, { status: 400 }),
        ),
      );
      renderWithProviders(
        <Verified codeType="user">
          <CallsignPage />
        </Verified>,
        { path: '/login/callsign', language },
      );
      await user.type(await screen.findByRole('textbox'), 'Admin');
      await user.click(screen.getByRole('button'));
      expect(await screen.findByRole('alert')).toHaveTextContent(text);
      expect(reloadTo).not.toHaveBeenCalled();
    },
  );

  it('a reserved callsign is refused with its own text for an admin too', async () => {
    const user = userEvent.setup();
    server.use(
      http.post(apiPaths.exchangeCode, () => HttpResponse.json({ jwt: 'first' })),
      http.post(apiPaths.addAdmin, () =>
        HttpResponse.json({ detail: RESERVED_CALLSIGN_DETAIL }, { status: 400 }),
      ),
    );
    renderCallsign('admin');
    await user.type(await screen.findByLabelText('Callsign'), 'Root');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This callsign is reserved for the TAK server or the portal itself.',
    );
  });

  it('a code that stopped admitting people since it was checked says why, not "callsign in use"', async () => {
    const user = userEvent.setup();
    server.use(
      http.post(apiPaths.enroll, () =>
        HttpResponse.json({ detail: INVITE_REFUSAL_DETAIL['used-up'] }, { status: 400 }),
      ),
    );
    renderCallsign('user');
    await user.type(await screen.findByLabelText('Callsign'), 'Alpha1');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This code has already been used as many times as it allows.');
    expect(alert).not.toHaveTextContent('already in use');
  });

  it.each([
    [400, 'This callsign is already in use. Choose another one.'],
    [500, 'Something unexpected went wrong. Please try again.'],
  ])('a %i answer shows its message', async (status, message) => {
    const user = userEvent.setup();
    server.use(http.post(apiPaths.enroll, () => HttpResponse.json({ detail: 'nope' }, { status })));
    renderCallsign('user');
    await user.type(await screen.findByLabelText('Callsign'), 'Alpha1');
    await user.click(screen.getByRole('button', { name: /save callsign/i }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(reloadTo).not.toHaveBeenCalled();
  });

  it('a 429 says in Finnish how long to wait, from Retry-After', async () => {
    const user = userEvent.setup();
    server.use(
      http.post(apiPaths.enroll, () =>
        HttpResponse.json(
          { detail: 'Too many attempts; try again later' },
          { status: 429, headers: { 'Retry-After': '61' } },
        ),
      ),
    );
    renderCallsign('user', undefined, 'fi');
    await user.type(await screen.findByRole('textbox'), 'Alpha1');
    await user.click(screen.getByRole('button', { name: /tallenna/i }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Tästä verkosta on tullut liian monta väärää yritystä. Yritä uudelleen 2 minuutin kuluttua.',
    );
    expect(reloadTo).not.toHaveBeenCalled();
  });
});
