import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COPIED_INDICATOR_MS } from '@callsign/contract';
import { useCopied } from './use-copied';

afterEach(() => {
  vi.useRealTimers();
});

describe('useCopied', () => {
  it('copies the text and shows the copied state for 2 seconds', async () => {
    vi.useFakeTimers();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { result } = renderHook(() => useCopied());

    await act(async () => {
      result.current.copy('https://example.test/link');
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(writeText).toHaveBeenCalledWith('https://example.test/link');
    expect(result.current.copied).toBe(true);

    await act(() => vi.advanceTimersByTimeAsync(COPIED_INDICATOR_MS - 1));
    expect(result.current.copied).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(result.current.copied).toBe(false);
  });

  it('reports a failed copy', async () => {
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: () => Promise.reject(new Error('denied')) },
      configurable: true,
    });
    const { result } = renderHook(() => useCopied());
    await act(async () => {
      result.current.copy('x');
      await Promise.resolve();
    });
    await vi.waitFor(() => {
      expect(result.current.copyError).toBe('denied');
    });
    expect(result.current.copied).toBe(false);
  });
});
