export interface SignatureBudgetOptions {
  /** Signatures an address may cause at once, after a quiet spell. */
  readonly burst: number;
  /** Signatures an address earns back per second. */
  readonly perSecond: number;
  readonly now: () => Date;
  /** Addresses remembered; past it the longest-untouched one starts afresh with a full budget. */
  readonly maxAddresses?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const DEFAULT_MAX_ADDRESSES = 10_000;

/**
 * A token bucket per client address for the private-key signatures its requests cause (docs/api.md,
 * "The OCSP responder"): `take` spends one, or says there is none left.
 */
export class SignatureBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly options: SignatureBudgetOptions) {}

  take(address: string): boolean {
    const { burst, perSecond } = this.options;
    const now = this.options.now().getTime();
    const bucket = this.buckets.get(address);
    const earned = bucket === undefined ? burst : ((now - bucket.at) / 1000) * perSecond;
    const tokens = Math.min(burst, (bucket?.tokens ?? 0) + Math.max(0, earned));
    // Re-inserted last: the map's order is then the order of use, and the first is forgotten.
    this.buckets.delete(address);
    if (tokens < 1) {
      this.buckets.set(address, { tokens, at: now });
      return false;
    }
    this.buckets.set(address, { tokens: tokens - 1, at: now });
    if (this.buckets.size > (this.options.maxAddresses ?? DEFAULT_MAX_ADDRESSES)) {
      const oldest = this.buckets.keys().next();
      if (oldest.done !== true) this.buckets.delete(oldest.value);
    }
    return true;
  }
}
