// The portal's performance figures (issue 9). Run through `bash bench/run.sh [--quick]
// [--only=issuance,api,web,growth,isolation,bulk,enroll,burst,connections,ocsp,ocsp-strangers,directory,members,guesses] [--record]`; see bench/README.md.
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDir, importServer, loadAverage, repoDir, run, serverDist } from './lib/common.mjs';

/**
 * Each section's module, imported only when it runs: a section that needs none of bench/'s own
 * packages (autocannon, lighthouse) then runs without them.
 * @type {Record<string, () => Promise<(context: { quick: boolean, workDir: string, log: (line: string) => void }) => Promise<{ markdown: string, results: unknown }>>>}
 */
const sectionRunners = {
  issuance: async () => (await import('./sections/issuance.mjs')).issuanceSection,
  api: async () => (await import('./sections/api.mjs')).apiSection,
  web: async () => (await import('./sections/web.mjs')).webSection,
  growth: async () => (await import('./sections/growth.mjs')).growthSection,
  isolation: async () => (await import('./sections/isolation.mjs')).isolationSection,
  bulk: async () => (await import('./sections/bulk.mjs')).bulkSection,
  enroll: async () => (await import('./sections/enroll.mjs')).enrollSection,
  burst: async () => (await import('./sections/burst.mjs')).burstSection,
  connections: async () => (await import('./sections/connections.mjs')).connectionsSection,
  ocsp: async () => (await import('./sections/ocsp.mjs')).ocspSection,
  'ocsp-strangers': async () =>
    (await import('./sections/ocsp-strangers.mjs')).ocspStrangersSection,
  directory: async () => (await import('./sections/directory.mjs')).directorySection,
  members: async () => (await import('./sections/members.mjs')).membersSection,
  guesses: async () => (await import('./sections/guesses.mjs')).guessesSection,
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const record = args.includes('--record');
const onlyArg = args.find((a) => a.startsWith('--only='));
const sections = Object.keys(sectionRunners);
const only = onlyArg ? onlyArg.slice('--only='.length).split(',') : sections;
for (const name of only) {
  if (!sections.includes(name)) {
    console.error(`unknown section ${name}; choose from ${sections.join(', ')}`);
    process.exit(2);
  }
}

/** @param {string} line */
const log = (line) => console.error(line);

const started = new Date();
const workDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-'));
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const { stdout: opensslVersion } = await run('openssl', ['version']);
const cfsslVersion = await run('cfssl', ['version']).then(
  (r) => r.stdout.split('\n')[0] ?? '',
  () => 'not installed',
);
const gitCommit = await run('git', ['-C', benchDir, 'rev-parse', '--short', 'HEAD']).then(
  (r) => r.stdout.trim(),
  () => 'unknown',
);
const ownBuild =
  process.env.BENCH_SERVER_DIST !== undefined && process.env.BENCH_SERVER_DIST !== '';
const shownArgs = [...args, ...(ownBuild ? ['--own-build'] : [])];
const command = `bash bench/run.sh${shownArgs.length ? ` ${shownArgs.join(' ')}` : ''}`;
const dirty = await run('git', [
  '-C',
  repoDir,
  'status',
  '--porcelain',
  '--untracked-files=no',
]).then(
  (r) => r.stdout.trim() !== '',
  () => false,
);

const header = [
  `Run of ${started.toISOString()} (${quick ? 'quick' : 'full'} mode), commit ${gitCommit}.`,
  '',
  `- Command: \`${command}\``,
  `- Server: \`${path.relative(repoDir, serverDist)}\`${dirty ? ' (the working tree has uncommitted changes)' : ''}`,
  `- Machine: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}`,
  `- Node ${process.version}; ${opensslVersion.trim()}; cfssl ${cfsslVersion.trim()}`,
  `- Load average at start: ${loadAverage()}`,
  '',
];

/** @type {string[]} */
const parts = [];
/** @type {Record<string, unknown>} */
const json = { started: started.toISOString(), quick, command, cpu, node: process.version };
// One CA for every portal of the run (lib/portal-process.mjs copies it in).
const caTemplate = path.join(workDir, 'ca-template');
const { CertificateAuthority } = await importServer('ca/authority.js');
await CertificateAuthority.loadOrCreate({
  dir: caTemplate,
  publicBaseUrl: 'https://portal.localhost:8443',
});
process.env.BENCH_CA_TEMPLATE = caTemplate;
const context = { quick, workDir, log };
let failed = false;
try {
  for (const name of only) {
    log(`== ${name} (load ${loadAverage()})`);
    const begin = performance.now();
    try {
      const runSection = await sectionRunners[name]();
      const section = await runSection(context);
      parts.push(section.markdown);
      json[name] = section.results;
    } catch (error) {
      failed = true;
      log(`section ${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
      parts.push(
        `## ${name}\n\nFailed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
    log(`== ${name} took ${((performance.now() - begin) / 1000).toFixed(0)} s`);
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
const seconds = (Date.now() - started.getTime()) / 1000;
header.push(`- Load average at end: ${loadAverage()}; the run took ${seconds.toFixed(0)} s.`, '');
const report = [...header, ...parts].join('\n');

const resultsDir = path.join(benchDir, 'results');
await mkdir(resultsDir, { recursive: true });
await writeFile(path.join(resultsDir, 'latest.md'), `${report}\n`);
await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
log(`wrote bench/results/latest.md and latest.json`);

if (record) {
  const file = path.join(benchDir, 'RESULTS.md');
  const text = await readFile(file, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error('RESULTS.md lacks the bench markers');
  await writeFile(file, `${text.slice(0, from + begin.length)}\n\n${report}\n${text.slice(to)}`);
  log('recorded the figures in bench/RESULTS.md');
}
process.stdout.write(`${report}\n`);
process.exit(failed ? 1 : 0);
