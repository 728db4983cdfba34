import { TooManyRequestsError } from '../errors.js';

/**
 * Guessing is throttled per client address (product.md §3): check-code, the invite check,
 * exchange, enroll and accept share one budget of failures a minute. Past it those calls answer
 * 429 with Retry-After until the minute is over; other addresses are unaffected.
 *
 * This store lives in the process: behind several instances each keeps its own count (a shared
 * store for scale-out is the deployment issue's work; the interface stays).
 */
export interface FailureBudget {
  /** Throws 429 when `address` has spent its budget in the current window. */
  assertAllowed(address: string): void;
  /** Counts one failed attempt (a false check, an unknown code, a taken callsign...). */
  recordFailure(address: string): void;
}

const WINDOW_MS = 60_000;

export class InMemoryFailureBudget implements FailureBudget {
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();

  constructor(
    private readonly failuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  assertAllowed(address: string): void {
    const window = this.current(address);
    if (window !== undefined && window.failures >= this.failuresPerMinute) {
      throw new TooManyRequestsError((window.startedAt + WINDOW_MS - this.now()) / 1000);
    }
  }

  recordFailure(address: string): void {
    const window = this.current(address);
    if (window === undefined) {
      this.windows.set(address, { startedAt: this.now(), failures: 1 });
      this.sweep();
    } else {
      window.failures += 1;
    }
  }

  private current(address: string) {
    const window = this.windows.get(address);
    if (window === undefined) return undefined;
    if (this.now() - window.startedAt >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Forgets finished windows so memory follows the number of recent offenders. */
  private sweep(): void {
    if (this.windows.size < 1024) return;
    const now = this.now();
    for (const [address, window] of this.windows) {
      if (now - window.startedAt >= WINDOW_MS) this.windows.delete(address);
    }
  }
}
