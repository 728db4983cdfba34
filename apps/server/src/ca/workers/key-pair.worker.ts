import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import os from 'node:os';
import type { KeyPairJob } from '../key-pool.js';
import { serveJobs } from './serve.js';

// The key pool's thread (../key-pool.ts). On Linux, where the nice value is per thread, it first
// lowers its own thread's scheduling priority, so the operating system runs it only on a core
// nothing else wants (elsewhere the nice value is the whole process's, so it is left alone). Then
// it makes one key pair per job and answers with the private key (a KeyObject is cloned across
// threads; it is never written anywhere).
if (process.platform === 'linux') {
  try {
    os.setPriority(19);
  } catch {
    // Not allowed here: the keys are made at the ordinary priority.
  }
}

serveJobs(
  (job: KeyPairJob): KeyObject =>
    (job.type === 'ec'
      ? generateKeyPairSync('ec', job.options)
      : generateKeyPairSync('rsa', job.options)
    ).privateKey,
);
