// Section 15: OCSP under a flood of serials this CA never issued (issue 36, finding 3). Each
// request of the flood names a new random serial, so no answer of it can be cached; before the
// fix each cost a private-key signature. Measured meanwhile, against idle phases: a client asking
// about a member's key whose answer is cached, and first-time members (a key never asked about,
// whose answer must be signed). Budget: their p99 moves less than 2x.
import http from 'node:http';
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fmt, importServer, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { benchEngines, createPostgresDatabase } from '../lib/postgres.mjs';
import { latencyRow, postOcsp, signaturesSoFar, startFlood } from '../lib/ocsp-client.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const LOOPS = 20;
const CACHED_EVERY_MS = 10;
// Each first-time member is a key made at the start (seconds each on a loaded machine): few.
const FIRST_TIME_EVERY_MS = 500;

/**
 * Requests one after the other on a kept-alive connection, one due every `everyMs`, until `until`
 * settles; latency counted from when each fell due.
 * @param {{ port: number, host: string }} server @param {() => Buffer | undefined} next
 * @param {number} everyMs @param {Promise<unknown>} until
 */
async function askUntil(server, next, everyMs, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  void until.then(() => {
    done = true;
  });
  /** @type {number[]} */
  const latencies = [];
  /** @type {Record<number, number>} */
  const ocspStatuses = {};
  let due = performance.now();
  while (!done) {
    const body = next();
    if (body === undefined) break;
    const answer = await postOcsp(server, agent, body);
    latencies.push(performance.now() - due);
    // OCSPResponse ::= SEQUENCE { responseStatus ENUMERATED (0a 01 xx), ... }
    const at = answer.body.indexOf(Buffer.from([0x0a, 0x01]));
    const status = at < 0 ? -1 : (answer.body[at + 2] ?? -1);
    ocspStatuses[status] = (ocspStatuses[status] ?? 0) + 1;
    due += everyMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    else due = performance.now();
  }
  await until;
  agent.destroy();
  return { latencies, ocspStatuses };
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 * @param {{ name: string, url?: string }} engine
 */
async function strangersOnEngine({ quick, workDir, log }, engine) {
  const phaseMs = quick ? 2_000 : 5_000;
  const rounds = quick ? 1 : 2;
  const firstTimePerPhase = Math.ceil(phaseMs / FIRST_TIME_EVERY_MS);
  const holders = 2 * rounds * firstTimePerPhase;
  const { ocspQuestion } = await importServer('ca/ocsp-check.js');
  const databaseUrl =
    engine.url === undefined
      ? undefined
      : await createPostgresDatabase(engine.url, 'bench_ocsp_strangers');
  const portal = await startChild(
    portalScript,
    [
      JSON.stringify({
        dataDir: path.join(workDir, `ocsp-strangers-${engine.name}`),
        active: 100,
        pending: 0,
        keyHolders: holders,
        metrics: true,
        ...(databaseUrl ? { databaseUrl } : {}),
      }),
    ],
    { timeoutMs: 900_000 },
  );
  const info = portal.info;
  try {
    const issuerPem = /** @type {string} */ (info.chainPem).split(
      /(?<=-----END CERTIFICATE-----\n)/,
    )[0];
    const serialOf = (/** @type {string} */ pem) => new X509Certificate(pem).serialNumber;
    const cached = ocspQuestion(issuerPem, serialOf(info.member.certPem)).der;
    await postOcsp(info, new http.Agent({ keepAlive: false }), cached);
    /** @type {Buffer[]} */
    const firstTime = info.keyHolders.map(
      (/** @type {{ certPem: string }} */ holder) =>
        ocspQuestion(issuerPem, serialOf(holder.certPem)).der,
    );
    // A stranger's request: a 16-byte serial starting 7f, found in the DER and randomised per request.
    const strangerSerial = `7f${'ab'.repeat(15)}`;
    const stranger = ocspQuestion(issuerPem, strangerSerial).der;
    const offset = stranger.indexOf(Buffer.from(strangerSerial, 'hex'));
    if (offset < 0) throw new Error('the serial is not where the request holds it');

    /** @type {Record<'idle' | 'flooded', { cached: number[], firstTime: number[], load: string[] }>} */
    const phases = {
      idle: { cached: [], firstTime: [], load: [] },
      flooded: { cached: [], firstTime: [], load: [] },
    };
    /** @type {Record<string, number>} */
    const firstTimeStatuses = {};
    const rates = [];
    let floodSignatures = 0;
    let floodAnswers = 0;
    for (let round = 0; round < rounds; round++) {
      for (const phase of /** @type {const} */ (['idle', 'flooded'])) {
        const before = loadAverage();
        const signaturesBefore = await signaturesSoFar(info);
        const flood =
          phase === 'flooded'
            ? startFlood(info, stranger, Number.MAX_SAFE_INTEGER, LOOPS, { offset, length: 16 })
            : undefined;
        const over = sleep(phaseMs);
        const [asked, fresh] = await Promise.all([
          askUntil(info, () => cached, CACHED_EVERY_MS, over),
          askUntil(info, () => firstTime.shift(), FIRST_TIME_EVERY_MS, over),
        ]);
        const stopped = await flood?.stop();
        phases[phase].cached.push(...asked.latencies);
        phases[phase].firstTime.push(...fresh.latencies);
        phases[phase].load.push(`${before} → ${loadAverage()}`);
        for (const [status, count] of Object.entries(fresh.ocspStatuses)) {
          firstTimeStatuses[status] = (firstTimeStatuses[status] ?? 0) + count;
        }
        if (stopped !== undefined) {
          rates.push(stopped.perSecond);
          floodAnswers += stopped.answered;
          floodSignatures +=
            (await signaturesSoFar(info)) - signaturesBefore - fresh.latencies.length;
        }
        log(
          `  ocsp-strangers ${engine.name} round ${round + 1} ${phase}: cached p99 ${fmt(percentile(asked.latencies, 99), 2)} ms, first-time p99 ${fmt(percentile(fresh.latencies, 99), 2)} ms${stopped ? `, flood ${fmt(stopped.perSecond, 0)}/s` : ''} (load ${loadAverage()})`,
        );
      }
    }
    return { engine: engine.name, phases, rates, floodSignatures, floodAnswers, firstTimeStatuses };
  } finally {
    await portal.stop();
  }
}

/** @param {string} name @param {number[]} latencies @param {string[]} load */
function row(name, latencies, load) {
  return [...latencyRow(name, latencies), load.join('; ')];
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function ocspStrangersSection(context) {
  const runs = [];
  for (const engine of benchEngines()) runs.push(await strangersOnEngine(context, engine));
  const ratio = (/** @type {number[]} */ flooded, /** @type {number[]} */ idle) =>
    fmt(percentile(flooded, 99) / percentile(idle, 99), 2);
  const markdown = [
    '## 15. OCSP under a flood of strangers\u2019 serials (issue 36, finding 3)',
    '',
    `${LOOPS} loops in a worker thread, each on its own kept-alive connection, each request naming a new random serial this CA never issued; meanwhile a cached-answer client (one member's key, a request due every ${CACHED_EVERY_MS} ms) and first-time members (a key never asked about, one due every ${FIRST_TIME_EVERY_MS} ms), in rounds of an idle phase then a flooded phase. p50 / p99 / max in ms.`,
    '',
    table(
      ['measure', 'p50 ms', 'p99 ms', 'max ms', 'samples', 'load before → after'],
      runs.flatMap((r) => [
        row(`${r.engine}: cached answer, idle`, r.phases.idle.cached, r.phases.idle.load),
        row(`${r.engine}: cached answer, flooded`, r.phases.flooded.cached, r.phases.flooded.load),
        row(`${r.engine}: first-time member, idle`, r.phases.idle.firstTime, r.phases.idle.load),
        row(
          `${r.engine}: first-time member, flooded`,
          r.phases.flooded.firstTime,
          r.phases.flooded.load,
        ),
      ]),
    ),
    '',
    ...runs.map(
      (r) =>
        `- ${r.engine}: p99 flooded / idle: cached **${ratio(r.phases.flooded.cached, r.phases.idle.cached)}x**, first-time **${ratio(r.phases.flooded.firstTime, r.phases.idle.firstTime)}x**; the flood ${r.rates.map((rate) => fmt(rate, 0)).join(', ')} answers/s, ${r.floodSignatures} signatures for its ${r.floodAnswers} answers; first-time answers by OCSP status ${JSON.stringify(r.firstTimeStatuses)}.`,
    ),
    '',
  ];
  return { markdown: markdown.join('\n'), results: runs };
}
