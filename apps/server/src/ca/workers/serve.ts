import { parentPort, type Transferable } from 'node:worker_threads';

/** A job's error as it crosses back to the pool: its kind (`TypeError`, ...) and its message. */
export interface ThrownError {
  readonly name: string;
  readonly message: string;
}

/** What a worker thread answers each job with: its value, or the error it threw. */
export type JobAnswer<R> = { readonly value: R } | { readonly error: ThrownError };

/**
 * The thread side of a `WorkerPool` (../worker-pool.ts), called once by each worker module: runs
 * `run` for each job posted to this thread and answers with its value (the buffers `transferOf`
 * names are moved, not copied) or with the error it threw. A job's failure is answered; only a
 * fault of the thread itself ends it.
 */
export function serveJobs<R>(
  // `never`: any job type; a job arrives as the worker's own type, posted by its pool.
  run: (job: never) => R | Promise<R>,
  transferOf: (value: R) => readonly Transferable[] = () => [],
): void {
  const port = parentPort;
  if (port === null) throw new Error('serveJobs() runs in a worker thread, not the main one');
  port.on('message', (job: unknown) => {
    void (async () => {
      try {
        const value = await run(job as never);
        port.postMessage({ value } satisfies JobAnswer<R>, transferOf(value));
      } catch (error) {
        port.postMessage({ error: thrownError(error) } satisfies JobAnswer<R>);
      }
    })();
  });
}

function thrownError(error: unknown): ThrownError {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}
