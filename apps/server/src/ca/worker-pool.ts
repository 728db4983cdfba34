import { Worker, type Transferable } from 'node:worker_threads';
import type { JobAnswer, ThrownError } from './workers/serve.js';

/**
 * The file of a worker module beside `base` (the caller's `import.meta.url`), named without its
 * extension: the `.ts` source when the caller runs from source (the test runner), the compiled
 * `.js` of the build otherwise.
 */
export function workerFile(relative: string, base: string): URL {
  return new URL(`${relative}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/** Where a worker starts when its module is TypeScript: it registers the hooks that load it. */
const FROM_SOURCE = new URL('./workers/from-source.mjs', import.meta.url);

export interface WorkerPoolOptions<J> {
  /** The worker's module (`workerFile`), which calls `serveJobs` (workers/serve.ts). */
  readonly file: URL;
  /** How many threads; at least 1. */
  readonly size: number;
  /** What the threads do, for errors: "the {name} worker stopped …". */
  readonly name: string;
  /**
   * Whether a thread keeps the process alive while it runs a job (default true). An idle thread
   * never does.
   */
  readonly holdsProcess?: boolean;
  /** The error a job that threw is rejected with; default: the same kind, the same message. */
  readonly jobError?: (job: J, thrown: ThrownError) => Error;
}

interface Pending<J, R> {
  readonly job: J;
  readonly transfer: readonly Transferable[];
  readonly resolve: (value: R) => void;
  readonly reject: (error: Error) => void;
}

interface Thread<J, R> {
  readonly worker: Worker;
  /** The job it runs now; one at a time. */
  pending: Pending<J, R> | undefined;
  gone: boolean;
}

/**
 * `size` worker threads started from one module, each running one job at a time: jobs wait in
 * order for a free thread. A job that fails is rejected with its error (`jobError`); a thread that
 * dies rejects its job and is replaced by a new one when the next job needs it; `close()` ends
 * them all and refuses the jobs still waiting and any after it.
 */
export class WorkerPool<J, R> {
  private readonly slots: (Thread<J, R> | undefined)[];
  private readonly queue: Pending<J, R>[] = [];
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions<J>) {
    const { size, name } = options;
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`the number of ${name} workers must be a whole number ≥ 1, not ${size}`);
    }
    // Started at once: the first job does not wait for a thread to load its modules.
    this.slots = Array.from({ length: size }, () => this.start());
  }

  /** Runs `job` in the next free thread; `transfer` names the buffers moved there, not copied. */
  run(job: J, transfer: readonly Transferable[] = []): Promise<R> {
    if (this.closed) return Promise.reject(this.closedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ job, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** The worker threads running now (a dead one is replaced only when a job needs it). */
  get threads(): Worker[] {
    return this.slots.flatMap((thread) => (thread === undefined ? [] : [thread.worker]));
  }

  /** Ends every thread; jobs in flight or waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(this.closedError());
    await Promise.all(this.threads.map((worker) => worker.terminate()));
    this.slots.fill(undefined);
  }

  private dispatch(): void {
    for (let index = 0; index < this.slots.length && this.queue.length > 0; index += 1) {
      let thread = this.slots[index];
      if (thread === undefined) {
        thread = this.start();
        this.slots[index] = thread;
      }
      if (thread.pending !== undefined) continue;
      const pending = this.queue.shift() as Pending<J, R>;
      thread.pending = pending;
      if (this.options.holdsProcess !== false) thread.worker.ref();
      thread.worker.postMessage(pending.job, pending.transfer);
    }
  }

  private start(): Thread<J, R> {
    const { file } = this.options;
    const worker = file.pathname.endsWith('.ts')
      ? new Worker(FROM_SOURCE, { workerData: { entry: file.href } })
      : new Worker(file);
    worker.unref();
    const thread: Thread<J, R> = { worker, pending: undefined, gone: false };
    worker.on('message', (answer: JobAnswer<R>) => {
      const pending = thread.pending;
      thread.pending = undefined;
      worker.unref();
      if (pending !== undefined) {
        if ('value' in answer) pending.resolve(answer.value);
        else pending.reject(this.jobError(pending.job, answer.error));
      }
      this.dispatch();
    });
    const died = (why: string) => {
      if (thread.gone) return;
      thread.gone = true;
      const index = this.slots.indexOf(thread);
      if (index >= 0) this.slots[index] = undefined;
      thread.pending?.reject(
        this.closed
          ? this.closedError()
          : new Error(`the ${this.options.name} worker stopped (${why}) before it answered`),
      );
      thread.pending = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (error) => {
      died(error.message);
    });
    worker.on('exit', (code) => {
      died(`exit code ${code}`);
    });
    return thread;
  }

  private jobError(job: J, thrown: ThrownError): Error {
    return this.options.jobError?.(job, thrown) ?? sameKind(thrown, thrown.message);
  }

  private closedError(): Error {
    return new Error(`the ${this.options.name} workers are closed`);
  }
}

/** An error of the thrown one's kind: bad input stays a TypeError or RangeError. */
export function sameKind(thrown: ThrownError, message: string): Error {
  if (thrown.name === 'TypeError') return new TypeError(message);
  if (thrown.name === 'RangeError') return new RangeError(message);
  return new Error(message);
}
