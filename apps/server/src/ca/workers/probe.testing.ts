import { CODE_ALPHABET } from '@callsign/contract';
import { serveJobs } from './serve.js';

/** What the pool's tests (../worker-pool.test.ts) ask a probe thread. */
export type ProbeJob =
  | { readonly kind: 'contract' }
  | { readonly kind: 'echo'; readonly value: string; readonly waitMs?: number }
  | { readonly kind: 'throw'; readonly name: 'TypeError' | 'RangeError' | 'Error' }
  | { readonly kind: 'exit' };

const ERRORS = { TypeError, RangeError, Error };

// A worker module for the pool's tests, run from its TypeScript source as the test runner runs
// every worker: it answers where @callsign/contract was loaded from, echoes, throws or exits.
serveJobs(async (job: ProbeJob) => {
  switch (job.kind) {
    case 'contract':
      return { resolved: import.meta.resolve('@callsign/contract'), alphabet: CODE_ALPHABET };
    case 'echo':
      if (job.waitMs !== undefined) await new Promise((done) => setTimeout(done, job.waitMs));
      return { echoed: job.value };
    case 'throw':
      throw new ERRORS[job.name](`the probe threw a ${job.name}`);
    case 'exit':
      process.exit(3);
  }
});
