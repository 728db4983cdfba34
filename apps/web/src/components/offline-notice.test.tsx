import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/render';
import { OfflineNotice } from './offline-notice';

function goOffline(offline: boolean) {
  vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(!offline);
  act(() => {
    window.dispatchEvent(new Event(offline ? 'offline' : 'online'));
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the offline notice', () => {
  it('appears when the network goes and leaves when it comes back', () => {
    renderWithProviders(<OfflineNotice />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    goOffline(true);
    expect(screen.getByRole('status')).toHaveTextContent(
      'You are offline. The guides you have opened before still work',
    );
    goOffline(false);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('speaks Finnish', () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    renderWithProviders(<OfflineNotice />, { language: 'fi' });
    expect(screen.getByRole('status')).toHaveTextContent('Ei verkkoyhteyttä.');
  });
});
