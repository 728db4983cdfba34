// Before/after of a server change: two builds of the server, each seeded with 10,000 members
// and 1,000 pending enrollees, driven in alternation by autocannon (one client) so that the
// machine's load falls on both alike.
//
// Usage: node bench/compare.mjs BEFORE_DIST AFTER_DIST [call] [rounds] [seconds]
//   call: people/list | enrollment/list | poll | check-auth (default people/list)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fmt, loadAverage, mean, repoDir, startChild, table } from './lib/common.mjs';
import { cannon, namedTargets, requestOnce } from './lib/client.mjs';
import { ACTIVE, PENDING } from './sections/api.mjs';

const [beforeDist, afterDist, which = 'people/list', roundsArg = '4', secondsArg = '4'] =
  process.argv.slice(2);
if (!beforeDist || !afterDist) {
  console.error('usage: node bench/compare.mjs BEFORE_DIST AFTER_DIST [call] [rounds] [seconds]');
  process.exit(2);
}
const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-compare-'));
const loadBefore = loadAverage();
const builds = [];
for (const [label, dist] of [
  ['before', beforeDist],
  ['after', afterDist],
]) {
  const child = await startChild(
    new URL('./lib/portal-process.mjs', import.meta.url).pathname,
    [JSON.stringify({ dataDir: path.join(workDir, label), active: ACTIVE, pending: PENDING })],
    { env: { BENCH_SERVER_DIST: path.resolve(repoDir, dist) } },
  );
  const target = namedTargets(child.info)[which];
  if (target === undefined) throw new Error(`unknown call ${which}`);
  const once = await requestOnce(child.info, target);
  if (once.status !== 200) throw new Error(`${label}: ${which} answered ${once.status}`);
  await cannon(child.info, target, { connections: 1, duration: 1 });
  builds.push({ label, dist, child, target, bytes: once.bytes, runs: /** @type {any[]} */ ([]) });
}
try {
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      build.runs.push(
        await cannon(build.child.info, build.target, {
          connections: 1,
          duration: Number(secondsArg),
        }),
      );
    }
  }
} finally {
  for (const build of builds) await build.child.stop();
  await rm(workDir, { recursive: true, force: true });
}
const rows = builds.map((b) => [
  b.label,
  `\`${b.dist}\``,
  b.bytes,
  fmt(mean(b.runs.map((r) => r.requestsPerSecond)), 0),
  fmt(mean(b.runs.map((r) => r.p50)), 1),
  fmt(mean(b.runs.map((r) => r.p99)), 1),
  b.runs.map((r) => `${r.p50}/${r.p99}`).join(', '),
]);
console.log(
  [
    `\`${which}\` at ${ACTIVE} members + ${PENDING} pending, one client, ${roundsArg} alternating runs of ${secondsArg} s. Load average before: ${loadBefore}; after: ${loadAverage()}.`,
    '',
    table(
      [
        'build',
        'server',
        'body bytes',
        'req/s (mean)',
        'p50 ms (mean)',
        'p99 ms (mean)',
        'p50/p99 per run',
      ],
      rows,
    ),
  ].join('\n'),
);
