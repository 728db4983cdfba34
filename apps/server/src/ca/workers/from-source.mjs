// @ts-check
/**
 * A worker thread's first module when the pool runs from the TypeScript sources (the test
 * runner): registers the TypeScript hooks, then loads the worker's own `.ts` module. The build
 * starts each worker from its compiled `.js` instead (../worker-pool.ts).
 */
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

register('./typescript-hooks.mjs', import.meta.url);
await import(entryOf(workerData));

/**
 * The worker's own module, as the pool passed it.
 * @param {unknown} data
 * @returns {string}
 */
function entryOf(data) {
  if (typeof data === 'object' && data !== null && 'entry' in data) {
    if (typeof data.entry === 'string') return data.entry;
  }
  throw new TypeError("a worker started from source needs its module's URL (workerData.entry)");
}
