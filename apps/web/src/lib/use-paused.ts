import { useEffect, useState } from 'react';

/** `value` as it stood once it stopped changing for `delayMs` (typing paused). */
export function usePaused<T>(value: T, delayMs: number): T {
  const [paused, setPaused] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => {
      setPaused(value);
    }, delayMs);
    return () => {
      clearTimeout(timer);
    };
  }, [value, delayMs]);
  return paused;
}
