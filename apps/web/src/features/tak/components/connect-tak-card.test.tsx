import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { takPaths, type TakEnrollmentTokenResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { formatCountdown, secondsLeft } from '../api/enrollment-token';
import { ConnectTakCard } from './connect-tak-card';

listenWithMockApi();

function answer(token: string, trusted: boolean): TakEnrollmentTokenResponse {
  return {
    username: 'Alpha1',
    token,
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
    host: 'tak.demo.example',
    port: 8446,
    atak_uri: `tak://com.atakmap.app/enroll?host=tak.demo.example&username=Alpha1&token=${token}`,
    itak_qr: 'demo,tak.demo.example,8089,ssl',
    registration_qr: `{"type":"registration","userCredentials":{"password":"${token}"}}`,
    trusted_by_phones: trusted,
  };
}

function tokenEndpoint(tokens: string[], trusted: boolean) {
  let calls = 0;
  server.use(
    http.post(takPaths.enrollmentToken, () => {
      const token = tokens[Math.min(calls, tokens.length - 1)] ?? 'ABCDEFGHJKLM';
      calls += 1;
      return HttpResponse.json(answer(token, trusted));
    }),
  );
  return () => calls;
}

describe('ConnectTakCard', () => {
  it('shows both QR codes, the user name and the code, the tak:// link and the count-down', async () => {
    const calls = tokenEndpoint(['ABCDEFGHJKLM'], true);
    renderWithProviders(<ConnectTakCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Show my code' }));

    expect(await screen.findByTestId('tak-enroll-token')).toHaveTextContent('ABCDEFGHJKLM');
    expect(screen.getByTestId('tak-enroll-username')).toHaveTextContent('Alpha1');
    expect(screen.getByRole('img', { name: 'QR code for ATAK' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'QR code for iTAK' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open in ATAK (on this phone)' })).toHaveAttribute(
      'href',
      'tak://com.atakmap.app/enroll?host=tak.demo.example&username=Alpha1&token=ABCDEFGHJKLM',
    );
    expect(screen.getByText(/This code works once, for 1[45]:\d\d more\./)).toBeInTheDocument();
    // A publicly trusted face: no trust package step.
    expect(screen.queryByRole('button', { name: 'Download the trust package' })).toBeNull();
    expect(calls()).toBe(1);
  });

  it('makes a new code on request, and puts the trust package first where phones need it', async () => {
    const calls = tokenEndpoint(['ABCDEFGHJKLM', 'NPQRSTUVWXYZ'], false);
    renderWithProviders(<ConnectTakCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Show my code' }));
    expect(await screen.findByTestId('tak-enroll-token')).toHaveTextContent('ABCDEFGHJKLM');
    expect(screen.getByRole('button', { name: 'Download the trust package' })).toBeInTheDocument();
    expect(screen.getByText(/ATAK asks for a user name and password/)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'New code' }));
    expect(await screen.findByText('NPQRSTUVWXYZ')).toBeInTheDocument();
    expect(calls()).toBe(2);
  });

  it('says why when no code can be made', async () => {
    server.use(
      http.post(takPaths.enrollmentToken, () =>
        HttpResponse.json({ detail: 'Not a valid user' }, { status: 403 }),
      ),
    );
    renderWithProviders(<ConnectTakCard />);
    await userEvent.click(screen.getByRole('button', { name: 'Show my code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not make a code.');
  });
});

describe('the count-down', () => {
  it('counts whole seconds down to zero and writes m:ss', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(secondsLeft('2026-01-01T00:15:00Z', now)).toBe(900);
    expect(secondsLeft('2026-01-01T00:00:00.200Z', now)).toBe(1);
    expect(secondsLeft('2025-12-31T23:59:00Z', now)).toBe(0);
    expect(formatCountdown(900)).toBe('15:00');
    expect(formatCountdown(61)).toBe('1:01');
    expect(formatCountdown(0)).toBe('0:00');
  });
});
