// Profiles the portal while autocannon drives one call, with 10,000 members and 1,000 pending
// enrollees (as in section 2), and prints the functions with the most self time.
//
// Usage: node bench/profile.mjs [people/list|enrollment/list|poll|check-auth|enduserpfx] [seconds]
//          [connections]
// On PostgreSQL: bash scripts/with-postgres.sh node bench/profile.mjs people/list 5
// The .cpuprofile lands in bench/results/profiles/ (open it in Chrome DevTools).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDir, startChild } from './lib/common.mjs';
import { cannon, namedTargets, requestOnce } from './lib/client.mjs';
import { createPostgresDatabase } from './lib/postgres.mjs';
import { ACTIVE, PENDING } from './sections/api.mjs';

const which = process.argv[2] ?? 'people/list';
const seconds = Number(process.argv[3] ?? 5);
const connections = Number(process.argv[4] ?? 1);
const profileDir = path.join(benchDir, 'results/profiles');
await mkdir(profileDir, { recursive: true });
const label = which.replace(/\W+/g, '-');
const profileFile = path.join(
  profileDir,
  `${label}-${new Date().toISOString().replace(/[:.]/g, '')}.cpuprofile`,
);
const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-profile-'));
const portal = await startChild(
  new URL('./lib/portal-process.mjs', import.meta.url).pathname,
  [
    JSON.stringify({
      dataDir: path.join(workDir, 'data'),
      databaseUrl: process.env.PORTAL_TEST_POSTGRES_URL
        ? await createPostgresDatabase(
            process.env.PORTAL_TEST_POSTGRES_URL,
            `bench_profile_${process.pid}`,
          )
        : undefined,
      active: ACTIVE,
      pending: PENDING,
    }),
  ],
  { env: { BENCH_PROFILE: profileFile } },
);
const { info } = portal;
const targets = namedTargets(info);
const target = targets[which];
if (target === undefined) throw new Error(`unknown call ${which}`);
try {
  const once = await requestOnce(info, target);
  if (once.status !== 200) throw new Error(`${which} answered ${once.status}`);
  const result = await cannon(info, target, { connections, duration: seconds });
  console.log(
    `${which} (${connections} connection(s)): ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.non2xx} non-2xx`,
  );
  // autocannon leaves its last requests in flight: let the portal finish them before it is asked
  // to write its profile and stop (it is killed if that takes more than 10 s).
  if (connections > 1) await new Promise((resolve) => setTimeout(resolve, 20_000));
} finally {
  await portal.stop();
  await rm(workDir, { recursive: true, force: true });
}

for (const file of [path.basename(profileFile)]) {
  /** @type {{ nodes: { id: number, callFrame: { functionName: string, url: string, lineNumber: number } }[], samples: number[], timeDeltas: number[] }} */
  const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8'));
  /** @type {Map<number, number>} */
  const selfTime = new Map();
  profile.samples.forEach((id, i) =>
    selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  /** @type {Map<string, number>} */
  const byFunction = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const time = selfTime.get(node.id) ?? 0;
    total += time;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/apps\//, 'apps/');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + time);
  }
  console.log(`\n${file}: top self time of ${(total / 1000).toFixed(0)} ms`);
  for (const [key, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
}
