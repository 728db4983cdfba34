import { fileURLToPath } from 'node:url';
import { CODE_ALPHABET } from '@callsign/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { workerFile, WorkerPool } from './worker-pool.js';
import type { ProbeJob } from './workers/probe.testing.js';

// The worker pool behind the packing, key-pool and CRL threads (docs/architecture.md, "Work off
// the event loop"), with a probe worker run from its TypeScript source as the test runner runs
// every worker: nothing built first, the contract package read from its source.

const PROBE = workerFile('./workers/probe.testing', import.meta.url);
const opened: WorkerPool<ProbeJob, unknown>[] = [];

function pool(size: number): WorkerPool<ProbeJob, unknown> {
  const made = new WorkerPool<ProbeJob, unknown>({ file: PROBE, size, name: 'probe' });
  opened.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((made) => made.close()));
});

describe('WorkerPool', () => {
  it('runs a worker from source with @callsign/contract read from packages/contract/src, not a build', async () => {
    const answer = await pool(1).run({ kind: 'contract' });
    expect(answer).toEqual({
      resolved: expect.stringMatching(/\/packages\/contract\/src\/index\.ts$/) as unknown,
      alphabet: CODE_ALPHABET,
    });
  });

  it('names a worker module by the caller: its .ts from source, its .js in the build', () => {
    expect(fileURLToPath(workerFile('./workers/x.worker', 'file:///app/src/ca/pool.ts'))).toBe(
      '/app/src/ca/workers/x.worker.ts',
    );
    expect(fileURLToPath(workerFile('./workers/x.worker', 'file:///app/dist/ca/pool.js'))).toBe(
      '/app/dist/ca/workers/x.worker.js',
    );
  });

  it('queues more jobs than it has threads and answers each with its own value', async () => {
    const workers = pool(2);
    const values = ['a', 'b', 'c', 'd', 'e'];
    const answers = await Promise.all(
      values.map((value) => workers.run({ kind: 'echo', value, waitMs: 20 })),
    );
    expect(answers).toEqual(values.map((value) => ({ echoed: value })));
    expect(workers.threads).toHaveLength(2);
  });

  it('rejects a job that threw with the same kind of error, and the thread goes on', async () => {
    const workers = pool(1);
    const [thread] = workers.threads;
    await expect(workers.run({ kind: 'throw', name: 'TypeError' })).rejects.toThrow(
      new TypeError('the probe threw a TypeError'),
    );
    await expect(workers.run({ kind: 'throw', name: 'RangeError' })).rejects.toThrow(RangeError);
    await expect(workers.run({ kind: 'echo', value: 'after' })).resolves.toEqual({
      echoed: 'after',
    });
    expect(workers.threads).toEqual([thread]);
  });

  it('a thread that dies fails its job and is replaced at the next job', async () => {
    const workers = pool(1);
    const [first] = workers.threads;
    await expect(workers.run({ kind: 'exit' })).rejects.toThrow(
      'the probe worker stopped (exit code 3) before it answered',
    );
    expect(workers.threads).toEqual([]);
    await expect(workers.run({ kind: 'echo', value: 'again' })).resolves.toEqual({
      echoed: 'again',
    });
    const [second] = workers.threads;
    expect(second!.threadId).not.toBe(first!.threadId);
  });

  it('close() ends the threads and refuses the jobs waiting and any after it', async () => {
    const workers = pool(1);
    const waiting = [1, 2].map((n) =>
      expect(workers.run({ kind: 'echo', value: String(n), waitMs: 60_000 })).rejects.toThrow(
        'the probe workers are closed',
      ),
    );
    await workers.close();
    await Promise.all(waiting);
    expect(workers.threads).toEqual([]);
    await expect(workers.run({ kind: 'echo', value: 'late' })).rejects.toThrow(
      'the probe workers are closed',
    );
  });

  it('refuses a size that cannot work', () => {
    for (const size of [0, 1.5, -1]) {
      expect(() => new WorkerPool({ file: PROBE, size, name: 'probe' })).toThrow(RangeError);
    }
  });
});
