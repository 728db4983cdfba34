import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { countSeenOnTak, markSeenOnTak } from '../people/service.js';
import { PresenceSources, type PresenceSourceOptions } from './presence-sources.js';
import {
  lastRevocationFetches,
  markKeyChecked,
  recordRevocationFetch,
  type RevocationFetch,
  type RevocationFetchKind,
} from './repository.js';

export type { RevocationFetch, RevocationFetchKind };

/** A key, or a kind of fetch, is written at most once in this long (per instance and in SQL). */
export const PRESENCE_WRITE_INTERVAL_MS = 60_000;
// Held in memory between flushes at most: past it, new evidence waits for the next minute.
const MAX_PENDING = 10_000;

interface Pending {
  at: number;
  address: string | null;
}

/**
 * Presence (docs/operations.md#tak-readiness): each OCSP request or CRL fetch is evidence that a TAK Server checked
 * a key. Recording it never holds up the answer: `ocspAsked` and `crlFetched` only queue, and a
 * flush after the answer writes the queue. Writes are bounded: a key (and each kind of fetch) is
 * queued at most once a minute on this instance, and the UPDATE itself skips a row another
 * instance wrote within the minute, so a flood of OCSP requests is not a flood of writes.
 * A failed write is reported to `onError` and dropped; the answer never depends on it. Only
 * OCSP requests from a TAK Server's address count (`PresenceSources`); the rest are dropped.
 */
export class TakPresence {
  /** When each serial or fetch kind was last queued here; pruned as entries age out. */
  private readonly queuedAt = new Map<string, number>();
  private readonly keys = new Map<string, Pending>();
  private readonly fetches = new Map<RevocationFetchKind, Pending>();
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private readonly sources: PresenceSources;
  /** Rows written so far (keys, members, fetches): what the tests count. */
  rowsWritten = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly onError: (error: unknown) => void = () => undefined,
    sources: PresenceSourceOptions = {},
  ) {
    this.sources = new PresenceSources(sources);
  }

  /** An OCSP request from `address` asked about these serials (the recorded ones only). */
  ocspAsked(serials: readonly string[], address: string | null): void {
    const at = this.now().getTime();
    this.queueFetch('ocsp', at, address);
    for (const serial of serials) {
      if (this.keys.size >= MAX_PENDING) break;
      if (this.throttled(`key:${serial}`, at)) continue;
      this.keys.set(serial, { at, address });
    }
    this.schedule();
  }

  /** Someone at `address` fetched the CRL. */
  crlFetched(address: string | null): void {
    const at = this.now().getTime();
    this.sources.crlFetched(address, at);
    this.queueFetch('crl', at, address);
    this.schedule();
  }

  /** The last recorded OCSP request and CRL fetch of any instance. */
  lastFetches(): Promise<Partial<Record<RevocationFetchKind, RevocationFetch>>> {
    return lastRevocationFetches(this.db);
  }

  /** How many active members a TAK Server asked about a key of at or after `since`. */
  membersSeenSince(since: number): Promise<number> {
    return countSeenOnTak(this.db, since);
  }

  /** Writes what is queued now (and waits for a flush under way); resolves, never rejects. */
  async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.keys.size === 0 && this.fetches.size === 0) return;
    this.flushing = this.write().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private queueFetch(kind: RevocationFetchKind, at: number, address: string | null): void {
    if (!this.throttled(`fetch:${kind}`, at)) this.fetches.set(kind, { at, address });
  }

  /** True when `name` was queued within the minute; else notes it as queued now. */
  private throttled(name: string, at: number): boolean {
    const last = this.queuedAt.get(name);
    if (last !== undefined && at - last <= PRESENCE_WRITE_INTERVAL_MS && at >= last) return true;
    this.queuedAt.set(name, at);
    return false;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the answer has gone: a timer, not a microtask, so the reply is written first.
    setTimeout(() => {
      this.scheduled = false;
      void this.flush();
    }, 0).unref();
  }

  private async write(): Promise<void> {
    const keys = [...this.keys];
    const fetches = [...this.fetches];
    this.keys.clear();
    this.fetches.clear();
    this.prune();
    try {
      const counts = await this.countingSources([...keys, ...fetches].map(([, seen]) => seen));
      for (const [kind, fetch] of fetches) {
        if (kind === 'ocsp' && !counts(fetch, `fetch:${kind}`)) continue;
        const notBefore = fetch.at - PRESENCE_WRITE_INTERVAL_MS;
        if (await recordRevocationFetch(this.db, kind, { ...fetch, notBefore })) {
          this.rowsWritten++;
        }
      }
      for (const [serial, check] of keys) {
        if (!counts(check, `key:${serial}`)) continue;
        const notBefore = check.at - PRESENCE_WRITE_INTERVAL_MS;
        await this.db.transaction().execute(async (trx) => {
          const owner = await markKeyChecked(trx, serial, { ...check, notBefore });
          if (owner === undefined) return;
          this.rowsWritten++;
          if (await markSeenOnTak(trx, owner, check.at)) this.rowsWritten++;
        });
      }
    } catch (error) {
      this.onError(error);
    }
  }

  /**
   * Whether a sighting counts; one that does not is dropped and its throttle entry forgotten, so
   * that a TAK Server's request within the minute still counts. Reads the database's last CRL
   * fetch only when an address is not settled without it.
   */
  private async countingSources(
    seen: readonly Pending[],
  ): Promise<(sighting: Pending, throttle: string) => boolean> {
    const lastCrl = seen.some((s) => this.sources.needsDatabase(s.address, s.at))
      ? (await lastRevocationFetches(this.db)).crl
      : undefined;
    return (sighting, throttle) => {
      if (this.sources.counts(sighting.address, sighting.at, lastCrl)) return true;
      this.queuedAt.delete(throttle);
      return false;
    };
  }

  /** Forgets throttle entries older than the interval, so the map holds a minute's keys. */
  private prune(): void {
    const cutoff = this.now().getTime() - PRESENCE_WRITE_INTERVAL_MS;
    for (const [name, at] of this.queuedAt) {
      if (at < cutoff) this.queuedAt.delete(name);
    }
  }
}
