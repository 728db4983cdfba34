// Section 17: guesses from many addresses (issue 36, finding 5). Ten loopback addresses
// (127.0.0.10-19) guess invite codes as fast as the portal answers: `GET enrollment/invitecode`
// with a wrong code of the right shape (8 symbols of the code alphabet, as an invite code is), a
// call that spends the failure budget (docs/api.md, "Guessing is throttled"). Measured meanwhile,
// against quiet phases before and after: a member's `check-auth/validuser` on the mTLS face with
// their key, and a newcomer checking a valid invite code on the public face from 127.0.0.1 (code
// sign-in must stay possible, only slowed). Budget: their p99 moves less than 2x. A control
// phase floods the health check from the same addresses: what that many requests cost anyway.
// Loopback only; the floods are bounded in count and time and stop by themselves.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { floodInWorker, fmt, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { INVITE_CHECK, agentFor, get } from '../lib/guess-client.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const GUESSERS = Array.from({ length: 10 }, (_, index) => `127.0.0.${10 + index}`);
const LOOPS_PER_GUESSER = 2;
/** A bound on each loop's guesses, whatever the phase's length. */
const GUESSES_PER_LOOP = 100_000;
const MEMBER_EVERY_MS = 10;
const NEWCOMER_EVERY_MS = 100;
/** The seeded invite (lib/seed.mjs): open, plain, never spent by a check. */
const VALID_INVITE = 'BENCHSEED';
/** How long after the flood the newcomer's check may wait for a 200 (the ceiling's minute). */
const RECOVERY_BOUND_MS = 90_000;

/**
 * @typedef {import('../lib/guess-client.mjs').Server & { mtlsHost: string }} Server
 * @typedef {import('../lib/guess-client.mjs').Key} Key
 */

/**
 * The flood (guess-flood-worker.mjs), in a worker thread, until `stop()`; with `control`, of
 * health checks instead of guesses.
 * @param {Server} server @param {boolean} control
 * @returns {{ stop: () => Promise<{ statuses: Record<string, number>, foundInvite: number, seconds: number }> }}
 */
function startFlood(server, control) {
  return floodInWorker(new URL('./guess-flood-worker.mjs', import.meta.url), {
    server: { port: server.port, host: server.host, chainPem: server.chainPem },
    guessers: GUESSERS,
    loopsPerGuesser: LOOPS_PER_GUESSER,
    perLoop: GUESSES_PER_LOOP,
    control,
  });
}

/**
 * Requests in an open loop from 127.0.0.1, one due every `everyMs` (on up to 4 kept-alive
 * connections) until `done` settles; each answer's latency counts from when it fell due, and
 * its status and time are kept.
 * @param {Server} server @param {string} host @param {string} urlPath @param {number} everyMs
 * @param {Promise<unknown>} done @param {Key} [key]
 */
async function openLoop(server, host, urlPath, everyMs, done, key) {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const agent = agentFor(server, '127.0.0.1', key, 4);
  /** @type {{ at: number, ms: number, status: number }[]} */
  const answers = [];
  /** @type {Promise<void>[]} */
  const pending = [];
  let due = performance.now();
  while (!finished) {
    const dueAt = due;
    pending.push(
      get(server, agent, host, urlPath).then(({ status }) => {
        answers.push({ at: performance.now(), ms: performance.now() - dueAt, status });
      }),
    );
    due += everyMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(pending);
  agent.destroy();
  return answers;
}

/** @param {{ status: number }[]} answers */
function statusCounts(answers) {
  /** @type {Record<number, number>} */
  const counts = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The longest time in ms without a 200, from the phase's start. @param {{ at: number, status: number }[]} answers @param {number} from @param {number} to */
function longestWithout200(answers, from, to) {
  let last = from;
  let longest = 0;
  for (const answer of [...answers].sort((a, b) => a.at - b.at)) {
    if (answer.status !== 200) continue;
    longest = Math.max(longest, answer.at - last);
    last = answer.at;
  }
  return Math.max(longest, to - last);
}

/**
 * One phase: both callers' open loops for `ms`, quiet, during the guess flood, or during the
 * control flood of health checks.
 * @param {Server & { member: Key }} info @param {number} ms
 * @param {'quiet' | 'guesses' | 'control'} kind
 */
async function phase(info, ms, kind) {
  const loadBefore = loadAverage();
  const flood = kind === 'quiet' ? undefined : startFlood(info, kind === 'control');
  const from = performance.now();
  const over = sleep(ms);
  const [member, newcomer] = await Promise.all([
    openLoop(
      info,
      info.mtlsHost,
      '/api/v1/check-auth/validuser',
      MEMBER_EVERY_MS,
      over,
      info.member,
    ),
    openLoop(info, info.host, `${INVITE_CHECK}${VALID_INVITE}`, NEWCOMER_EVERY_MS, over),
  ]);
  const to = performance.now();
  const stopped = await flood?.stop();
  return {
    kind,
    load: `${loadBefore} → ${loadAverage()}`,
    member,
    newcomer,
    newcomerLongestWithout200Ms: longestWithout200(newcomer, from, to),
    flood: stopped,
  };
}

/**
 * After the flood: the newcomer's valid invite check, every 250 ms, until it answers 200 (the
 * ceiling's minute over), at most RECOVERY_BOUND_MS; the ms it took.
 * @param {Server} server
 */
async function untilInviteCheckPasses(server) {
  const agent = agentFor(server, '127.0.0.1');
  const start = performance.now();
  try {
    while (performance.now() - start < RECOVERY_BOUND_MS) {
      const { status } = await get(server, agent, server.host, `${INVITE_CHECK}${VALID_INVITE}`);
      if (status === 200) return performance.now() - start;
      await sleep(250);
    }
    return NaN;
  } finally {
    agent.destroy();
  }
}

/** @param {{ ms: number, status: number }[]} answers @param {boolean} [okOnly] */
const p99Of = (answers, okOnly = true) =>
  percentile(
    answers.filter((a) => !okOnly || a.status === 200).map((a) => a.ms),
    99,
  );

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function guessesSection({ quick, workDir, log }) {
  const quietMs = quick ? 5_000 : 15_000;
  // Longer than the ceiling's minute, so that a new minute opens during the flood.
  const floodMs = quick ? 15_000 : 75_000;
  const controlMs = quick ? 10_000 : 30_000;
  const portal = await startChild(
    portalScript,
    [
      JSON.stringify({
        dataDir: path.join(workDir, 'guesses'),
        active: 100,
        pending: 0,
      }),
    ],
    { timeoutMs: 600_000 },
  );
  const info = portal.info;
  /** @type {Awaited<ReturnType<typeof phase>>[]} */
  const phases = [];
  let recoveryMs = NaN;
  try {
    const first = await openLoop(
      info,
      info.host,
      `${INVITE_CHECK}${VALID_INVITE}`,
      NEWCOMER_EVERY_MS,
      sleep(300),
    );
    if (first.some((answer) => answer.status !== 200)) {
      throw new Error(`the valid invite check answered ${JSON.stringify(statusCounts(first))}`);
    }
    for (const [ms, kind] of /** @type {const} */ ([
      [quietMs, 'quiet'],
      [floodMs, 'guesses'],
      [quietMs, 'quiet'],
      [controlMs, 'control'],
    ])) {
      const result = await phase(info, ms, kind);
      phases.push(result);
      if (kind === 'guesses') recoveryMs = await untilInviteCheckPasses(info);
      log(
        `  guesses ${kind}: member p99 ${fmt(p99Of(result.member), 2)} ms, newcomer ${JSON.stringify(statusCounts(result.newcomer))}${result.flood ? `, flood ${JSON.stringify(result.flood.statuses)} in ${fmt(result.flood.seconds, 1)} s` : ''} (load ${loadAverage()})`,
      );
    }
  } finally {
    await portal.stop();
  }
  return summarise(phases, { quietMs, floodMs, controlMs, recoveryMs });
}

/** `flooded` against each quiet p99: "1.5x, 1.2x". @param {number} flooded @param {number[]} quiet */
const ratios = (flooded, quiet) => quiet.map((q) => `${fmt(flooded / q, 2)}x`).join(', ');

/**
 * @param {Awaited<ReturnType<typeof phase>>[]} phases
 * @param {{ quietMs: number, floodMs: number, controlMs: number, recoveryMs: number }} lengths
 */
function summarise(phases, { quietMs, floodMs, controlMs, recoveryMs }) {
  const quiet = phases.filter((p) => p.kind === 'quiet');
  const of = (/** @type {string} */ kind) =>
    /** @type {(typeof phases)[number]} */ (phases.find((p) => p.kind === kind));
  const flooded = of('guesses');
  const control = of('control');
  const flood = /** @type {NonNullable<typeof flooded.flood>} */ (flooded.flood);
  const controlFlood = /** @type {NonNullable<typeof control.flood>} */ (control.flood);
  const countOf = (/** @type {Record<string, number>} */ statuses) =>
    Object.values(statuses).reduce((a, b) => a + b, 0);
  const quietMember = Math.max(...quiet.map((p) => p99Of(p.member)));
  const quietNewcomer = Math.max(...quiet.map((p) => p99Of(p.newcomer)));
  const evaluated = flood.statuses[200] ?? 0;
  const refused = flood.statuses[429] ?? 0;
  const sent = countOf(flood.statuses);
  const names = {
    quiet: ['quiet, before', 'quiet, after'],
    guesses: ['guess flood'],
    control: ['health-check flood (control)'],
  };
  const rows = phases.flatMap((p) => {
    const name = /** @type {string} */ (names[p.kind].shift());
    return [
      [
        `member \`check-auth\` (mTLS), ${name}`,
        fmt(
          percentile(
            p.member.filter((a) => a.status === 200).map((a) => a.ms),
            50,
          ),
          2,
        ),
        fmt(p99Of(p.member), 2),
        JSON.stringify(statusCounts(p.member)),
        p.load,
      ],
      [
        `newcomer's valid invite check, ${name}`,
        fmt(
          percentile(
            p.newcomer.map((a) => a.ms),
            50,
          ),
          2,
        ),
        `${fmt(p99Of(p.newcomer, false), 2)} (200s only: ${fmt(p99Of(p.newcomer), 2)})`,
        `${JSON.stringify(statusCounts(p.newcomer))}; longest without a 200: ${fmt(p.newcomerLongestWithout200Ms / 1000, 1)} s`,
        p.load,
      ],
    ];
  });
  const results = {
    quietMs,
    floodMs,
    guessers: GUESSERS.length,
    loopsPerGuesser: LOOPS_PER_GUESSER,
    flood: { ...flood, sent, evaluated, refused, evaluatedPerSecond: evaluated / flood.seconds },
    memberP99: {
      quiet: quietMember,
      flooded: p99Of(flooded.member),
      control: p99Of(control.member),
    },
    control: {
      ms: controlMs,
      statuses: controlFlood.statuses,
      perSecond: countOf(controlFlood.statuses) / controlFlood.seconds,
    },
    newcomerP99: { quiet: quietNewcomer, flooded: p99Of(flooded.newcomer, false) },
    newcomer: {
      flooded: statusCounts(flooded.newcomer),
      firstPassAfterFloodMs: recoveryMs,
      longestWithout200Ms: flooded.newcomerLongestWithout200Ms,
    },
    phases: phases.map((p) => ({
      kind: p.kind,
      load: p.load,
      member: { p99: p99Of(p.member), statuses: statusCounts(p.member) },
      newcomer: { p99: p99Of(p.newcomer, false), statuses: statusCounts(p.newcomer) },
    })),
  };
  const markdown = [
    '## Guesses from many addresses (issue 36, finding 5)',
    '',
    `${GUESSERS.length} addresses (127.0.0.10-19), ${LOOPS_PER_GUESSER} kept-alive connections each, each sending \`GET enrollment/invitecode\` with a new wrong 8-symbol code as soon as the last was answered, for ${floodMs / 1000} s, between quiet phases of ${quietMs / 1000} s; then, as a control, the same loops asking for \`GET healthcheck\` (no guess) for ${controlMs / 1000} s. Meanwhile, from 127.0.0.1 in open loops: a member's \`check-auth/validuser\` with their key every ${MEMBER_EVERY_MS} ms, and a newcomer's check of a valid invite every ${NEWCOMER_EVERY_MS} ms. p50 / p99 in ms, latency from when each request fell due.`,
    '',
    table(['caller, phase', 'p50 ms', 'p99 ms', 'answers', 'load before → after'], rows),
    '',
    `- The guess flood: ${sent} guesses in ${fmt(flood.seconds, 1)} s (${fmt(sent / flood.seconds, 0)}/s); **${evaluated} evaluated** (answered 200, ${flood.foundInvite} found an invite), **${fmt(results.flood.evaluatedPerSecond, 1)} evaluated/s** across the deployment; ${refused} answered 429; others ${JSON.stringify(Object.fromEntries(Object.entries(flood.statuses).filter(([s]) => s !== '200' && s !== '429')))}.`,
    `- p99 guess flood / quiet (the higher quiet phase; against quiet before, after): member **${fmt(results.memberP99.flooded / quietMember, 2)}x** (${ratios(
      results.memberP99.flooded,
      quiet.map((p) => p99Of(p.member)),
    )}), newcomer **${fmt(results.newcomerP99.flooded / quietNewcomer, 2)}x** (${ratios(
      results.newcomerP99.flooded,
      quiet.map((p) => p99Of(p.newcomer)),
    )}; every answer, 200 or 429). After the flood stopped, the newcomer's check first answered 200 again after ${fmt(recoveryMs / 1000, 1)} s (the quiet phase after began then).`,
    `- The control flood: ${fmt(results.control.perSecond, 0)} health checks/s (${JSON.stringify(controlFlood.statuses)}); member p99 **${fmt(results.memberP99.control / quietMember, 2)}x** (${ratios(
      results.memberP99.control,
      quiet.map((p) => p99Of(p.member)),
    )}).`,
    '',
  ];
  return { markdown: markdown.join('\n'), results };
}
