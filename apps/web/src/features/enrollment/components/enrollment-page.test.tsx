import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCEPTANCE_POLL_INTERVAL_MS, apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { EnrollmentPage, approvalLink } from './enrollment-page';

listenWithMockApi();
afterEach(() => {
  vi.useRealTimers();
});

beforeEach(() => {
  localStorage.setItem('token', 'enrollment-token');
  localStorage.setItem('callsign', 'Alpha1');
  localStorage.setItem('approveCode', 'APPROVE2');
});

/** have-i-been-accepted answers false `pendingPolls` times, then true; counts the calls. */
function acceptanceAfter(pendingPolls: number) {
  const calls = { count: 0, auth: [] as (string | null)[] };
  server.use(
    http.get(apiPaths.acceptance, ({ request }) => {
      calls.count += 1;
      calls.auth.push(request.headers.get('authorization'));
      const accepted = calls.count > pendingPolls;
      return HttpResponse.json({
        have_i_been_accepted: accepted,
        state: accepted ? 'approved' : 'pending',
      });
    }),
  );
  return calls;
}

describe('EnrollmentPage', () => {
  it('polls every 5 s until accepted, then stops and hands over once', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const calls = acceptanceAfter(2);
    const onAccepted = vi.fn();
    renderWithProviders(<EnrollmentPage onAccepted={onAccepted} onMissing={vi.fn()} />, {
      path: '/login/enrollment',
    });
    await vi.waitFor(() => {
      expect(calls.count).toBe(1);
    });
    expect(onAccepted).not.toHaveBeenCalled();

    await act(() => vi.advanceTimersByTimeAsync(ACCEPTANCE_POLL_INTERVAL_MS));
    await vi.waitFor(() => {
      expect(calls.count).toBe(2);
    });
    expect(onAccepted).not.toHaveBeenCalled();

    await act(() => vi.advanceTimersByTimeAsync(ACCEPTANCE_POLL_INTERVAL_MS));
    await vi.waitFor(() => {
      expect(onAccepted).toHaveBeenCalledTimes(1);
    });
    expect(calls.count).toBe(3);

    await act(() => vi.advanceTimersByTimeAsync(ACCEPTANCE_POLL_INTERVAL_MS * 4));
    expect(calls.count).toBe(3);
    expect(onAccepted).toHaveBeenCalledTimes(1);
    expect(calls.auth.every((value) => value === 'Bearer enrollment-token')).toBe(true);
  });

  it('says so and stops polling once an admin revoked the enrollment', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let polls = 0;
    server.use(
      http.get(apiPaths.acceptance, () => {
        polls += 1;
        return HttpResponse.json({ have_i_been_accepted: false, state: 'revoked' });
      }),
    );
    const onAccepted = vi.fn();
    renderWithProviders(<EnrollmentPage onAccepted={onAccepted} onMissing={vi.fn()} />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'An administrator has revoked this enrollment.',
    );
    expect(screen.queryByText('APPROVE2')).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(ACCEPTANCE_POLL_INTERVAL_MS * 3));
    expect(polls).toBe(1);
    expect(onAccepted).not.toHaveBeenCalled();
  });

  it('shows the callsign, the approval code and the checking text', async () => {
    acceptanceAfter(100);
    renderWithProviders(<EnrollmentPage onAccepted={vi.fn()} onMissing={vi.fn()} />);
    expect(screen.getByText('Alpha1')).toBeInTheDocument();
    expect(screen.getByText('APPROVE2')).toBeInTheDocument();
    expect(await screen.findByText('Checking enrollment status...')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'QR code of the approval link' })).toBeInTheDocument();
  });

  it('says in plain sight, not in the folded instructions, that the page moves on by itself', () => {
    acceptanceAfter(100);
    renderWithProviders(<EnrollmentPage onAccepted={vi.fn()} onMissing={vi.fn()} />);
    expect(screen.getByText(/This page moves on by itself once you are approved/)).toBeVisible();
    expect(screen.getByRole('button', { name: 'How to get approved' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  });

  it('without a stored approval code it neither polls nor shows the page, and leaves', () => {
    const calls = acceptanceAfter(0);
    localStorage.removeItem('approveCode');
    const onMissing = vi.fn();
    renderWithProviders(<EnrollmentPage onAccepted={vi.fn()} onMissing={onMissing} />);
    expect(onMissing).toHaveBeenCalled();
    expect(calls.count).toBe(0);
    expect(screen.queryByText('Alpha1')).not.toBeInTheDocument();
  });

  it('builds the approval link on the mtls host with callsign and approvalcode', () => {
    expect(approvalLink('Alpha 1', 'APPROVE2', 'https://mtls.portal.example')).toBe(
      'https://mtls.portal.example/app/admin/user-management/approval?callsign=Alpha+1&approvalcode=APPROVE2',
    );
  });
});
