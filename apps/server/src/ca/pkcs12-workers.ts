import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LeafOrder, LeafSigning, SignedLeaf } from './leaf.js';
import type { KeystoreOptions } from './pkcs12.js';
import type { Pkcs12Job, Pkcs12JobResult, Pkcs12Packing } from './pkcs12-jobs.js';
import type { TrustStoreOptions } from './trust-store.js';

const requireHere = createRequire(import.meta.url);

/**
 * Whether this module runs from its TypeScript source (the test runner) rather than from the
 * build: then the worker, which Node starts itself, needs the hooks below to load the sources.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * Module loader hooks for the worker when it runs the TypeScript sources (Node 20 cannot strip
 * types): `./x.js` imported from a `.ts` file is `./x.ts` when that exists (the sources' import
 * style), and a `.ts` file is compiled with TypeScript's `transpileModule`, types dropped and
 * nothing checked. The build never uses them: there the worker imports the compiled `.js`.
 */
const TYPESCRIPT_HOOKS = `
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
let ts;
export async function initialize(data) {
  ts = (await import(data.typescriptUrl)).default;
}
export async function resolve(specifier, context, next) {
  if (context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')) {
    const source = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(source)) return { url: source.href, shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const { outputText } = ts.transpileModule(await readFile(new URL(url), 'utf8'), {
    fileName: url,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
`;

/**
 * The worker's program, evaluated as a plain CommonJS script (`eval: true`, as the key pool's
 * and the CRL's): it imports `pkcs12-jobs` (the same modules the main thread would pack with)
 * by its file URL and runs one job per message, answering with the file's bytes (transferred,
 * not copied), the signed leaf (plain values), or the error's name and message. A job's failure
 * is answered; only a fault of the thread itself ends it.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const jobs = (async () => {
  if (workerData.typescriptUrl !== undefined) {
    require('node:module').register(
      'data:text/javascript,' + encodeURIComponent(workerData.hooks),
      { data: { typescriptUrl: workerData.typescriptUrl } },
    );
  }
  return import(workerData.jobsUrl);
})();
parentPort.on('message', async (job) => {
  try {
    const done = await (await jobs).runPkcs12Job(job);
    if (!(done instanceof Uint8Array)) {
      parentPort.postMessage({ value: done });
      return;
    }
    const bytes = new Uint8Array(done);
    parentPort.postMessage({ bytes }, [bytes.buffer]);
  } catch (error) {
    parentPort.postMessage({
      error: { name: String(error?.name ?? 'Error'), message: String(error?.message ?? error) },
    });
  }
});
`;

type Answer =
  { bytes: Uint8Array } | { value: SignedLeaf } | { error: { name: string; message: string } };

interface Pending {
  readonly job: Pkcs12Job;
  readonly resolve: (done: Buffer | SignedLeaf) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** The job it packs now; one at a time. */
  pending: Pending | undefined;
  gone: boolean;
}

/**
 * PKCS#12 packing in `size` worker threads (the service's: one per minting slot), so that the
 * key derivations and encryption of a burst of keystores never hold the event loop; members'
 * certificates are built and signed there too (`LeafSigning`, for a file-key CA). Jobs wait
 * in order for a free thread. A job that fails is rejected with its error (a TypeError stays a
 * TypeError: the input was bad); a thread that dies rejects its job and is replaced by a new one
 * when the next job needs it; `close()` ends them all.
 */
export class Pkcs12Workers implements Pkcs12Packing, LeafSigning {
  private readonly slots: (Thread | undefined)[];
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`the number of packing workers must be a whole number ≥ 1, not ${size}`);
    }
    // Started at once: the first download does not wait for a thread to load its modules.
    this.slots = Array.from({ length: size }, () => this.start());
  }

  keystore(options: KeystoreOptions): Promise<Buffer> {
    return this.run({ kind: 'keystore', options });
  }

  trustStore(options: TrustStoreOptions): Promise<Buffer> {
    return this.run({ kind: 'trustStore', options });
  }

  signLeaf(order: LeafOrder): Promise<SignedLeaf> {
    return this.run({ kind: 'leaf', order });
  }

  /** The worker threads running now (a dead one is replaced only when a job needs it). */
  get threads(): Worker[] {
    return this.slots.flatMap((thread) => (thread === undefined ? [] : [thread.worker]));
  }

  /** Ends every thread; jobs in flight or waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(closedError());
    await Promise.all(this.threads.map((worker) => worker.terminate()));
  }

  private run<J extends Pkcs12Job>(job: J): Promise<Pkcs12JobResult<J>> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      this.queue.push({
        job,
        resolve: (done) => {
          resolve(done as Pkcs12JobResult<J>);
        },
        reject,
      });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (let index = 0; index < this.slots.length && this.queue.length > 0; index += 1) {
      let thread = this.slots[index];
      if (thread === undefined) {
        thread = this.start();
        this.slots[index] = thread;
      }
      if (thread.pending !== undefined) continue;
      const pending = this.queue.shift() as Pending;
      thread.pending = pending;
      thread.worker.ref();
      thread.worker.postMessage(pending.job);
    }
  }

  private start(): Thread {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        jobsUrl: new URL(FROM_SOURCE ? './pkcs12-jobs.ts' : './pkcs12-jobs.js', import.meta.url)
          .href,
        ...(FROM_SOURCE
          ? {
              hooks: TYPESCRIPT_HOOKS,
              typescriptUrl: pathToFileURL(requireHere.resolve('typescript')).href,
            }
          : {}),
      },
    });
    // Held only while it packs: an idle worker never keeps the process alive.
    worker.unref();
    const thread: Thread = { worker, pending: undefined, gone: false };
    worker.on('message', (answer: Answer) => {
      const pending = thread.pending;
      thread.pending = undefined;
      worker.unref();
      if (pending !== undefined) {
        if ('bytes' in answer) pending.resolve(Buffer.from(answer.bytes.buffer));
        else if ('value' in answer) pending.resolve(answer.value);
        else pending.reject(jobError(pending.job, answer.error));
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
          ? closedError()
          : new Error(`the PKCS#12 packing worker stopped (${why}) before it answered`),
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
}

function closedError(): Error {
  return new Error('the PKCS#12 packing workers are closed');
}

/**
 * The worker's error as the same kind here: bad input stays a TypeError or RangeError. A leaf's
 * error names the certificate it was for.
 */
function jobError(job: Pkcs12Job, { name, message }: { name: string; message: string }): Error {
  if (job.kind === 'leaf') {
    const text = `signing the certificate for ${JSON.stringify(job.order.commonName)} failed: ${message}`;
    if (name === 'TypeError') return new TypeError(text);
    if (name === 'RangeError') return new RangeError(text);
    return new Error(text);
  }
  if (name === 'TypeError') return new TypeError(message);
  if (name === 'RangeError') return new RangeError(message);
  return new Error(`packing a PKCS#12 file failed: ${message}`);
}
