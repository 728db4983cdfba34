import { encodeTbs, type TbsJob } from '../crl-tbs.js';
import { serveJobs } from './serve.js';

// The CRL's thread (../crl.ts): encodes one CRL's to-be-signed part and moves its DER back.
serveJobs(
  (job: TbsJob) => encodeTbs(job),
  (tbs) => [tbs],
);
