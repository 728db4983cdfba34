import { useCallback, useEffect, useRef, useState } from 'react';
import { COPIED_INDICATOR_MS } from '@callsign/contract';
import { errorMessage } from './api-client';

/** Copies text to the clipboard; `copied` stays true for 2 seconds. */
export function useCopied(duration = COPIED_INDICATOR_MS) {
  const [copied, setCopied] = useState(false);
  const [copyError, setCopyError] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);

  useEffect(
    () => () => {
      window.clearTimeout(timer.current);
    },
    [],
  );

  const copy = useCallback(
    (text: string) => {
      setCopyError(null);
      Promise.resolve()
        .then(() => navigator.clipboard.writeText(text))
        .then(
          () => {
            setCopied(true);
            window.clearTimeout(timer.current);
            timer.current = window.setTimeout(() => {
              setCopied(false);
            }, duration);
          },
          (error: unknown) => {
            setCopyError(errorMessage(error));
          },
        );
    },
    [duration],
  );

  return { copied, copy, copyError };
}
