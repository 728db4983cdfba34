// Section 10: the OCSP responder on the hot path (issues 25 and 32). TAK Server asks on every
// client connection (docs/operations.md#tak-readiness), and anyone may ask (plain HTTP, no identity). On SQLite
// and PostgreSQL: a cached answer's p50 on one kept-alive connection (budget 2 ms), answers a
// second with 10 kept-alive clients (budget 5,000 on two cores), private-key signatures per
// cached answer read from the portal's /metrics (budget zero), how soon after a revocation through
// the API the next OCSP request sees it (on PostgreSQL with two instances, each asking the other's
// revocations: budget 1 s), and another caller's p99 during a flood (budget 2x).
import http from 'node:http';
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fmt, importServer, loadAverage, percentile, startChild, table } from '../lib/common.mjs';
import { pooledClient } from '../lib/client.mjs';
import { limitsParagraph, physicalLimits } from '../lib/limits.mjs';
import { benchEngines, createPostgresDatabase } from '../lib/postgres.mjs';
import { probe } from './isolation.mjs';
import { latencyRow, postOcsp, signaturesSoFar, startFlood } from '../lib/ocsp-client.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const LOOPS = 20;
const CLIENTS = 10;
const HEALTH_EVERY_MS = 10;

/**
 * What `fn` gives, with the load average before and after it.
 * @template T @param {() => Promise<T>} fn
 * @returns {Promise<T & { load: string }>}
 */
async function withLoad(fn) {
  const before = loadAverage();
  const result = await fn();
  return { ...result, load: `${before} → ${loadAverage()}` };
}

/**
 * Revocations through the API (`DELETE people/{callsign}/keys/{serial}`, an admin's key), each
 * followed at once by OCSP requests about that key, one after the other on a kept-alive
 * connection to `askers[i % n]`, until one answers revoked. Each key is asked about (and its good
 * answer cached) on every instance before. The delay counts from the API's answer.
 * @param {any[]} instances the revoking instance of round i is instances[i % n]
 * @param {any[]} askers
 * @param {{ callsign: string, certPem: string }[]} holders
 * @param {string} issuerPem
 * @param {(body: Buffer, question: any, issuerPem: string) => Promise<{ status: string }>} readAnswer
 * @param {(issuerPem: string, serial: string) => { der: Buffer }} makeQuestion
 */
async function revocationDelays(instances, askers, holders, issuerPem, readAnswer, makeQuestion) {
  const agents = askers.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  /** @type {number[]} */
  const delays = [];
  /** @type {number[]} */
  const requestsUntilSeen = [];
  let unseen = 0;
  try {
    for (const [i, holder] of holders.entries()) {
      const serial = new X509Certificate(holder.certPem).serialNumber;
      const question = makeQuestion(issuerPem, serial);
      for (const [a, asker] of askers.entries()) {
        const warm = await postOcsp(asker, /** @type {http.Agent} */ (agents[a]), question.der);
        const status = (await readAnswer(warm.body, question, issuerPem)).status;
        if (status !== 'good') throw new Error(`${holder.callsign}'s key was ${status} before`);
      }
      const revoker = instances[i % instances.length];
      const asker = i % askers.length;
      const admin = pooledClient(revoker, {
        face: 'mtls',
        method: 'DELETE',
        path: `/api/v1/people/${holder.callsign}/keys/${serial}`,
        key: revoker.admin,
      });
      const revoked = await admin.get();
      admin.close();
      if (revoked.status !== 200) throw new Error(`the revocation answered ${revoked.status}`);
      const answeredAt = performance.now();
      let requests = 0;
      for (;;) {
        requests++;
        const answer = await postOcsp(
          askers[asker],
          /** @type {http.Agent} */ (agents[asker]),
          question.der,
        );
        const arrivedAt = performance.now();
        const { status } = await readAnswer(answer.body, question, issuerPem);
        if (status === 'revoked') {
          delays.push(arrivedAt - answeredAt);
          requestsUntilSeen.push(requests);
          break;
        }
        if (arrivedAt - answeredAt > 5_000) {
          unseen++;
          break;
        }
      }
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return { delays, requestsUntilSeen, unseen };
}

/**
 * The hot-path figures and the flood on one engine.
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 * @param {{ name: string, url?: string }} engine
 */
async function ocspOnEngine({ quick, workDir, log }, engine) {
  const phaseMs = quick ? 2_000 : 5_000;
  const rounds = quick ? 1 : 3;
  const perLoop = quick ? 2_000 : 10_000;
  const sequential = quick ? 300 : 2_000;
  const revocations = quick ? 4 : 20;
  const { ocspQuestion, readOcspAnswer } = await importServer('ca/ocsp-check.js');
  const databaseUrl =
    engine.url === undefined ? undefined : await createPostgresDatabase(engine.url, 'bench_ocsp');
  const dataDir = path.join(workDir, `ocsp-${engine.name}`);
  const portal = await startChild(portalScript, [
    JSON.stringify({
      dataDir,
      active: 1_000,
      pending: 0,
      keyHolders: revocations,
      metrics: true,
      ...(databaseUrl ? { databaseUrl } : {}),
    }),
  ]);
  /** @type {Awaited<ReturnType<typeof startChild>> | undefined} */
  let second;
  const info = portal.info;
  try {
    if (databaseUrl !== undefined) {
      // Another instance on the same database: its own process, CA files copied from the same
      // template, its own answer cache.
      second = await startChild(portalScript, [
        JSON.stringify({
          dataDir: `${dataDir}-2`,
          active: 0,
          pending: 0,
          joinExisting: true,
          databaseUrl,
        }),
      ]);
    }
    const issuerPem = /** @type {string} */ (info.chainPem).split(
      /(?<=-----END CERTIFICATE-----\n)/,
    )[0];
    const serial = new X509Certificate(info.member.certPem).serialNumber;
    // As `openssl ocsp` sends it by default: with a nonce.
    const question = ocspQuestion(issuerPem, serial);
    const first = await postOcsp(info, new http.Agent({ keepAlive: false }), question.der);
    // Whether the answer echoes the nonce or not, it must be a good, signed answer.
    const answer = await readOcspAnswer(first.body, question, issuerPem).catch(
      (/** @type {Error} */ error) => ({ status: `refused: ${error.message}` }),
    );
    log(`  ocsp ${engine.name}: first answer ${first.status}, ${JSON.stringify(answer.status)}`);
    const signaturesBefore = await signaturesSoFar(info);

    // One client, one kept-alive connection, one request after the other.
    const oneClient = await withLoad(async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 50; i++) await postOcsp(info, agent, question.der);
      /** @type {number[]} */
      const latencies = [];
      for (let i = 0; i < sequential; i++)
        latencies.push((await postOcsp(info, agent, question.der)).ms);
      agent.destroy();
      return { latencies };
    });
    log(
      `  ocsp ${engine.name}: one client p50 ${fmt(percentile(oneClient.latencies, 50), 2)} ms (load ${oneClient.load})`,
    );

    // Ten clients, each on its own kept-alive connection, as fast as answers come; after as
    // long again untimed, so that the worker's start and the connections' are not counted.
    const warming = startFlood(info, question.der, Number.MAX_SAFE_INTEGER, CLIENTS);
    await sleep(phaseMs / 2);
    const warmed = await warming.stop();
    const tenClients = await withLoad(async () => {
      const flood = startFlood(info, question.der, Number.MAX_SAFE_INTEGER, CLIENTS);
      await sleep(phaseMs);
      return flood.stop();
    });
    log(
      `  ocsp ${engine.name}: ${CLIENTS} clients ${fmt(tenClients.perSecond, 0)} answers/s (load ${tenClients.load})`,
    );
    log(`  ocsp ${engine.name}: warm-up ${fmt(warmed.perSecond, 0)} answers/s`);
    const cachedAnswers = 50 + sequential + warmed.answered + tenClients.answered;
    const signaturesAfter = await signaturesSoFar(info);

    // A revocation through the API, and the next OCSP requests about that key.
    const instances = second === undefined ? [info] : [info, second.info];
    for (const instance of instances) instance.admin ??= info.admin;
    const revocation = await withLoad(() =>
      revocationDelays(
        instances,
        // With two instances the revocation made on one is asked of the other.
        second === undefined ? [info] : [second.info, info],
        info.keyHolders,
        issuerPem,
        readOcspAnswer,
        ocspQuestion,
      ),
    );
    log(
      `  ocsp ${engine.name}: revocation seen after p50 ${fmt(percentile(revocation.delays, 50), 2)} ms, max ${fmt(percentile(revocation.delays, 100), 1)} ms (load ${revocation.load})`,
    );

    // Another caller during a flood of 20 loops, against idle phases.
    const healthProbe = {
      name: '`GET /api/v1/healthcheck`',
      server: info,
      target: /** @type {const} */ ({ face: 'public', path: '/api/v1/healthcheck' }),
      everyMs: HEALTH_EVERY_MS,
    };
    const flood = await withLoad(async () => {
      await probe([healthProbe], sleep(500));
      /** @type {number[]} */
      const idle = [];
      /** @type {number[]} */
      const flooded = [];
      /** @type {Record<string, number>} */
      const statuses = {};
      /** @type {number[]} */
      const rates = [];
      for (let round = 0; round < rounds; round++) {
        const [quiet] = await probe([healthProbe], sleep(phaseMs));
        idle.push(...(quiet?.latencies ?? []));
        const running = startFlood(info, question.der, perLoop, LOOPS);
        const stopped = sleep(phaseMs).then(() => running.stop());
        const [busy] = await probe([healthProbe], stopped);
        const done = await stopped;
        flooded.push(...(busy?.latencies ?? []));
        for (const [status, count] of Object.entries(done.statuses)) {
          statuses[status] = (statuses[status] ?? 0) + count;
        }
        rates.push(done.perSecond);
        log(
          `  ocsp ${engine.name} flood round ${round + 1}/${rounds}: ${fmt(done.perSecond, 0)} answers/s (load ${loadAverage()})`,
        );
      }
      return { idle, flooded, statuses, rates };
    });
    return {
      engine: engine.name,
      instances: instances.length,
      firstAnswer: answer.status,
      oneClient,
      tenClients,
      signatures: signaturesAfter - signaturesBefore,
      cachedAnswers,
      revocation,
      flood,
    };
  } finally {
    await second?.stop();
    await portal.stop();
  }
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function ocspSection(context) {
  const { quick } = context;
  const limits = await physicalLimits(context);
  const runs = [];
  for (const engine of benchEngines()) runs.push(await ocspOnEngine(context, engine));
  const phaseMs = quick ? 2_000 : 5_000;
  const ms = (/** @type {number[]} */ values, /** @type {number} */ p, digits = 2) =>
    fmt(percentile(values, p), digits);
  const hotRows = runs.flatMap((r) => [
    [
      r.engine,
      'cached answer, one client, kept alive: p50 / p99 / max ms',
      `**${ms(r.oneClient.latencies, 50)}** / ${ms(r.oneClient.latencies, 99)} / ${ms(r.oneClient.latencies, 100, 1)} (${r.oneClient.latencies.length})`,
      'p50 < 2 ms',
      r.oneClient.load,
    ],
    [
      r.engine,
      `cached answers, ${CLIENTS} clients kept alive, ${phaseMs / 1000} s`,
      `**${fmt(r.tenClients.perSecond, 0)} answers/s** (${Object.entries(r.tenClients.statuses)
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ')})`,
      '5,000/s',
      r.tenClients.load,
    ],
    [
      r.engine,
      'private-key signatures per cached answer (`callsign_portal_ocsp_signatures_total`)',
      `**${fmt(r.signatures / r.cachedAnswers, 4)}** (${r.signatures} over ${r.cachedAnswers} answers)`,
      'zero',
      `${r.oneClient.load.split(' → ')[0]} → ${r.tenClients.load.split(' → ')[1]}`,
    ],
    [
      r.engine,
      r.instances > 1
        ? 'revocation through the API on one instance → revoked on the other: p50 / p99 / max ms'
        : 'revocation through the API → revoked on the next request: p50 / p99 / max ms',
      `**${ms(r.revocation.delays, 50)}** / ${ms(r.revocation.delays, 99)} / ${ms(r.revocation.delays, 100)} (${r.revocation.delays.length} revocations; seen by the first request after the API's answer: ${r.revocation.requestsUntilSeen.filter((n) => n === 1).length}; not seen within 5 s: ${r.revocation.unseen})`,
      '< 1 s',
      r.revocation.load,
    ],
  ]);
  const floodRows = runs.flatMap((r) => [
    latencyRow(`${r.engine}: healthcheck, idle`, r.flood.idle),
    latencyRow(`${r.engine}: healthcheck, during the OCSP flood`, r.flood.flooded),
  ]);
  const markdown = [
    '## 10. OCSP on the hot path (issues 25 and 32)',
    '',
    `A portal with 1,000 active members on each engine (on PostgreSQL a second instance on the same database, with its own answer cache); the request asks about one member's key, with a nonce (as \`openssl ocsp\` sends it), POSTed in plain HTTP to \`/ca/ocsp\` on loopback. The first answer read as a relying party reads it: ${runs.map((r) => `${r.engine} ${JSON.stringify(r.firstAnswer)}`).join(', ')}. One client: ${quick ? 300 : 2_000} requests one after the other on one kept-alive connection (after 50 to warm up). ${CLIENTS} clients: in a worker thread of the benchmark, each on its own kept-alive connection sending the same request as soon as the last was answered. Signatures: the portal's \`callsign_portal_ocsp_signatures_total\` from its /metrics before the first and after the last of those cached answers. Revocations: \`DELETE /api/v1/people/{callsign}/keys/{serial}\` with an admin's key (on PostgreSQL alternately on either instance), each key asked about (and its good answer cached) on every instance before; then OCSP requests about it one after the other on a kept-alive connection (to the other instance on PostgreSQL) until one answers revoked, timed from the API's answer.`,
    '',
    limitsParagraph(limits),
    '',
    table(['engine', 'measure', 'figure', 'budget', 'load before → after'], hotRows),
    '',
    `**The flood**: ${LOOPS} loops in a worker thread, each on its own kept-alive connection, at most ${quick ? 2_000 : 10_000} each, for ${phaseMs / 1000} s; the other caller \`GET /api/v1/healthcheck\` over TLS on the public face, an open loop (a request due every ${HEALTH_EVERY_MS} ms on up to 4 connections, latency counted from when it fell due), in ${quick ? 1 : 3} round(s) of an idle phase then a flooded phase. Budget: the other caller's p99 moves less than 2x.`,
    '',
    table(['measure', 'p50 ms', 'p99 ms', 'max ms', 'samples'], floodRows),
    '',
    ...runs.map(
      (r) =>
        `- ${r.engine}: healthcheck p99 flooded / idle **${fmt(percentile(r.flood.flooded, 99) / percentile(r.flood.idle, 99), 2)}x**; the flood ${r.flood.rates.map((rate) => fmt(rate, 0)).join(', ')} answers/s (per round); answers ${Object.entries(
          r.flood.statuses,
        )
          .map(([status, count]) => `${count} × ${status}`)
          .join(', ')}; load ${r.flood.load}.`,
    ),
    '',
  ];
  const results = {
    limits,
    engines: runs.map((r) => ({
      engine: r.engine,
      instances: r.instances,
      firstAnswer: r.firstAnswer,
      oneClient: {
        p50: percentile(r.oneClient.latencies, 50),
        p99: percentile(r.oneClient.latencies, 99),
        n: r.oneClient.latencies.length,
        load: r.oneClient.load,
      },
      tenClients: {
        perSecond: r.tenClients.perSecond,
        statuses: r.tenClients.statuses,
        load: r.tenClients.load,
      },
      signaturesPerCachedAnswer: r.signatures / r.cachedAnswers,
      signatures: r.signatures,
      cachedAnswers: r.cachedAnswers,
      revocation: {
        p50: percentile(r.revocation.delays, 50),
        p99: percentile(r.revocation.delays, 99),
        max: percentile(r.revocation.delays, 100),
        n: r.revocation.delays.length,
        firstRequestSaw: r.revocation.requestsUntilSeen.filter((n) => n === 1).length,
        unseen: r.revocation.unseen,
        load: r.revocation.load,
      },
      flood: {
        idleP99: percentile(r.flood.idle, 99),
        floodedP99: percentile(r.flood.flooded, 99),
        ratio: percentile(r.flood.flooded, 99) / percentile(r.flood.idle, 99),
        perSecond: r.flood.rates,
        statuses: r.flood.statuses,
        load: r.flood.load,
      },
    })),
  };
  return { markdown: markdown.join('\n'), results };
}
