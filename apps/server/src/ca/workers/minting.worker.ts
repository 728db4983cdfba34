import { runPkcs12Job, type Pkcs12Job } from '../pkcs12-jobs.js';
import { serveJobs } from './serve.js';

// A thread of `Pkcs12Workers` (../pkcs12-workers.ts): packs a PKCS#12 file or signs a leaf per
// job, with the same modules the main thread would use. A file's bytes are copied out of Node's
// shared buffer pool once, so that they can be moved (transferred) rather than copied again.
serveJobs(
  async (job: Pkcs12Job) => {
    const done = await runPkcs12Job(job);
    return done instanceof Uint8Array ? new Uint8Array(done) : done;
  },
  (done) => (done instanceof Uint8Array ? [done.buffer] : []),
);
