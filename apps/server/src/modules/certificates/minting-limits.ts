import os from 'node:os';
import { TooManyRequestsError } from '../../errors.js';

/**
 * How many key generations (and keystore packings) run at once in this process by default: one
 * per core but one, which is left to the event loop, so that minting cannot crowd out the
 * requests of everyone else (measured in bench/RESULTS.md, "Isolation"). At least one.
 */
export function defaultConcurrentMints(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/**
 * A fixed number of slots for CPU-heavy minting work, handed out first come, first served. Key
 * generation runs on libuv's thread pool (four threads by default) and keystore packing in the
 * service's packing workers, one per slot (on the event loop in the CLI): without a bound, a
 * burst of downloads queues hundreds of key generations in front of every other user of the
 * thread pool, and its packing and signing would take every core from everyone else.
 */
export class MintingSlots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`the number of minting slots must be a whole number ≥ 1, not ${size}`);
    }
  }

  /** How many jobs hold a slot now. */
  get inUse(): number {
    return this.busy;
  }

  /** How many jobs wait for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `job` in a slot, waiting for one to be free. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.busy < this.size) {
      this.busy += 1;
    } else {
      // The slot is handed over by the job that frees it (below), so `busy` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.busy -= 1;
      else next();
    }
  }
}

/**
 * At most one mint in flight per member in this process. A second request while one is minting
 * is refused (429, `Retry-After: 1`) rather than queued: each request would mint a new key, so a
 * queue would only let one member hold many requests open and spend their hourly budget on keys
 * no client asked for at once, and joining the first request would hand one private key out twice.
 */
export class MintsInFlight {
  private readonly members = new Set<string>();

  /** Claims the member's one mint; the returned function gives it back. */
  claim(callsign: string): () => void {
    const key = callsign.toLowerCase();
    if (this.members.has(key)) throw new TooManyRequestsError(1);
    this.members.add(key);
    return () => {
      this.members.delete(key);
    };
  }
}

/**
 * Members known to be past their hourly limit, and until when. Issued certificates only ever
 * accumulate, so a refusal holds until the oldest counted one leaves the hour whatever any
 * instance does meanwhile: repeated requests are refused again without asking the database.
 */
export class HourlyRefusals {
  private readonly until = new Map<string, number>();

  /** 429 (with the seconds left) when `callsign` is known to be refused at `now`. */
  check(callsign: string, now: number): void {
    const key = callsign.toLowerCase();
    const until = this.until.get(key);
    if (until === undefined) return;
    if (until > now) throw new TooManyRequestsError((until - now) / 1000);
    this.until.delete(key);
  }

  /** Remembers a refusal found in the database; returns its 429. */
  refuse(callsign: string, until: number, now: number): TooManyRequestsError {
    this.until.set(callsign.toLowerCase(), until);
    if (this.until.size > 1024) {
      for (const [key, at] of this.until) if (at <= now) this.until.delete(key);
    }
    return new TooManyRequestsError((until - now) / 1000);
  }
}
