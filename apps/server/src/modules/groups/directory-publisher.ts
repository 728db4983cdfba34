import {
  DirectoryUnavailableError,
  type Difference,
  type EntryFailure,
  type LdapDirectory,
  type PublishedState,
} from '../../directory/ldap-directory.js';
import type { DirectoryChanges } from '../../directory/changes.js';

/** The publication's state: the admin home's card and the metrics read it. */
export interface DirectoryStatus {
  inSync: boolean;
  /** When the directory last held the database's truth (epoch ms); null: not yet. */
  lastSyncAt: number | null;
  /** Why the last attempt failed; null when it did not. */
  lastError: string | null;
  /** Changes committed since the last sync that began, waiting for the directory. */
  pending: number;
  /** What the last sync changed: entries added, modified, deleted. */
  lastChanges: { added: number; modified: number; deleted: number } | null;
  /** The entries the last sync could not write, each with why; the rest was written. */
  entryErrors: EntryFailure[];
}

export interface DirectoryPublisherOptions {
  directory: LdapDirectory;
  /** The database's truth, read anew for each sync. */
  readState: () => Promise<PublishedState>;
  now: () => Date;
  /** A sync every this many ms even without a change (catches what another process did). */
  periodMs?: number;
  /** The first retry after a failure; each next one waits twice as long, up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Told of each failure (the service logs it once per run of failures). */
  onError?: (error: Error) => void;
}

/**
 * The reconciler (docs/directory.md): brings the directory's subtree to the database's truth at
 * start, after every committed change (`changed()`, called by the services after their commit)
 * and every `periodMs`. Syncs never overlap: a change during one makes one more follow. While the
 * directory is down it retries with a growing delay, and the next sync that succeeds writes
 * everything that changed meanwhile: it compares the whole subtree, so nothing is lost.
 */
export class DirectoryPublisher implements DirectoryChanges {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private retryDelay: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private periodTimer: NodeJS.Timeout | undefined;
  private state: DirectoryStatus = {
    inSync: false,
    lastSyncAt: null,
    lastError: null,
    pending: 0,
    lastChanges: null,
    entryErrors: [],
  };

  constructor(private readonly options: DirectoryPublisherOptions) {
    this.retryDelay = options.retryMs ?? 1000;
  }

  /** The first sync now, then one every period. */
  start(): void {
    this.kick();
    const period = this.options.periodMs ?? 60_000;
    this.periodTimer = setInterval(() => {
      this.kick();
    }, period);
    this.periodTimer.unref();
  }

  changed(): void {
    if (this.closed) return;
    this.state.pending += 1;
    this.kick();
  }

  status(): DirectoryStatus {
    return { ...this.state };
  }

  /** Runs a sync now (after the one running, if any) and waits for it. */
  async syncNow(): Promise<DirectoryStatus> {
    this.kick();
    while (this.running !== undefined) await this.running;
    return this.status();
  }

  /** What a sync would change, changing nothing. */
  async dryRun(): Promise<Difference> {
    const { diff } = await this.options.directory.sync(await this.options.readState(), {
      dryRun: true,
    });
    return diff;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.periodTimer);
    clearTimeout(this.retryTimer);
    while (this.running !== undefined) await this.running;
  }

  private kick(): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.running = this.runAll().finally(() => {
      this.running = undefined;
    });
  }

  private async runAll(): Promise<void> {
    do {
      this.again = false;
      await this.runOnce();
    } while (this.rerun());
  }

  /** A change came in during the sync that just ended. */
  private rerun(): boolean {
    return this.again && !this.closed;
  }

  private async runOnce(): Promise<void> {
    const pendingAtStart = this.state.pending;
    try {
      const { diff, failures } = await this.options.directory.sync(await this.options.readState());
      const lastChanges = {
        added: diff.add.length,
        modified: diff.modify.length,
        deleted: diff.delete.length,
      };
      const pending = Math.max(0, this.state.pending - pendingAtStart);
      if (failures.length > 0) {
        this.state = { ...this.state, pending, lastChanges, entryErrors: failures };
        this.failed(new Error(entriesNotWritten(failures)));
        return;
      }
      this.state = {
        inSync: true,
        lastSyncAt: this.options.now().getTime(),
        lastError: null,
        pending,
        lastChanges,
        entryErrors: [],
      };
      this.retryDelay = this.options.retryMs ?? 1000;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.failed(
        new Error(
          failure instanceof DirectoryUnavailableError
            ? failure.message
            : `The directory refused a change: ${failure.message}`,
        ),
      );
    }
  }

  private failed(error: Error): void {
    const firstFailure = this.state.lastError === null;
    this.state = { ...this.state, inSync: false, lastError: error.message };
    if (firstFailure) this.options.onError?.(error);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer !== undefined) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, this.options.maxRetryMs ?? 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, delay);
    this.retryTimer.unref();
  }
}

/** The last error when some entries were not written: how many, and the first. */
function entriesNotWritten(failures: readonly EntryFailure[]): string {
  const [first] = failures;
  const count = failures.length === 1 ? '1 entry' : `${failures.length} entries`;
  return `${count} not written: ${first?.dn ?? ''}: ${first?.error ?? ''}`;
}
