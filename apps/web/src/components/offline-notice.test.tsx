import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { apiRequest } from '../lib/api-client';
import { checkReachability } from '../lib/reachability';
import { listenWithMockApi, server } from '../test/server';
import { renderWithProviders } from '../test/render';
import { OfflineNotice } from './offline-notice';

listenWithMockApi();

const NOTICE = 'You are offline. The guides you have opened before still work';

/** The browser's own idea of the network (`navigator.onLine` and its events). */
function browserSays(online: boolean) {
  vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(online);
  act(() => {
    window.dispatchEvent(new Event(online ? 'online' : 'offline'));
  });
}

function healthAnswers() {
  server.use(
    http.get(apiPaths.healthcheck, () =>
      HttpResponse.json({ healthcheck: 'success', dns: 'x', version: '1', deployment: 'Unit' }),
    ),
  );
}

function nothingAnswers() {
  server.use(http.all('*', () => HttpResponse.error()));
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('the offline notice', () => {
  it('appears when the browser loses its network and leaves once the portal answers again', async () => {
    renderWithProviders(<OfflineNotice />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    browserSays(false);
    expect(screen.getByRole('status')).toHaveTextContent(NOTICE);
    // "online" alone proves nothing: the notice stays until the health check answers.
    nothingAnswers();
    browserSays(true);
    await act(() => checkReachability()); // the check the online event started
    expect(screen.getByRole('status')).toHaveTextContent(NOTICE);
    server.resetHandlers();
    healthAnswers();
    browserSays(true);
    await act(() => checkReachability());
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('appears when the browser says online but requests to the portal get no answer', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    renderWithProviders(<OfflineNotice />);
    nothingAnswers();
    await act(() => apiRequest(apiPaths.checkAuthAny).catch(() => undefined));
    expect(screen.getByRole('status')).toHaveTextContent(NOTICE);
  });

  it('counts a proxy that cannot reach the portal (502, 504) as no answer, any other status as one', async () => {
    renderWithProviders(<OfflineNotice />);
    server.use(http.get(apiPaths.checkAuthAny, () => new HttpResponse(null, { status: 502 })));
    await act(() => apiRequest(apiPaths.checkAuthAny).catch(() => undefined));
    expect(screen.getByRole('status')).toHaveTextContent(NOTICE);
    server.use(
      http.get(apiPaths.checkAuthAny, () => HttpResponse.json({ detail: 'no' }, { status: 403 })),
    );
    await act(() => apiRequest(apiPaths.checkAuthAny).catch(() => undefined));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('checks the portal again by itself while it cannot be reached, and leaves when it answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    renderWithProviders(<OfflineNotice />);
    nothingAnswers();
    await act(() => apiRequest(apiPaths.checkAuthAny).catch(() => undefined));
    expect(screen.getByRole('status')).toHaveTextContent(NOTICE);
    server.resetHandlers();
    healthAnswers();
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    vi.useRealTimers();
    await vi.waitFor(() => {
      expect(screen.queryByRole('status')).not.toBeInTheDocument();
    });
  });

  it('speaks Finnish', () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    renderWithProviders(<OfflineNotice />, { language: 'fi' });
    expect(screen.getByRole('status')).toHaveTextContent('Ei verkkoyhteyttä.');
  });
});
