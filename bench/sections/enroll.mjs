// Section 7: TAK enrollment (`signClient/v2` on the TAK enrollment face), on SQLite and
// PostgreSQL. One device at a time, the hot path a TAK client takes (issue 32): on one kept-alive
// connection, with a resumed TLS session (a new connection each, the handshake abbreviated), and
// on a new full handshake each. Then a burst: 100 devices, each with its own key made beforehand
// (on a phone that is the phone's work, not the portal's), send their CSRs at once with their
// members' one-time codes, each on its own new TLS connection; then the same 100 members download
// a .pfx at once (the portal makes each key).
import { mkdir, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { fmt, loadAverage, percentile, run, startChild, table } from '../lib/common.mjs';
import { requestOnce } from '../lib/client.mjs';
import { limitsParagraph, physicalLimits } from '../lib/limits.mjs';
import { benchEngines, createPostgresDatabase } from '../lib/postgres.mjs';

/**
 * One request to the enrollment face: on a new connection, or on `agent`'s (kept alive, or new
 * with the agent's cached TLS session). `reused`: the connection was kept alive; `resumed`: its
 * TLS session was resumed.
 * @param {{ takEnrollPort: number, takHost: string, chainPem: string }} info
 * @param {{ path: string, auth: string, body: string }} request
 * @param {https.Agent | false} [agent]
 * @returns {Promise<{ status: number, ms: number, body: Buffer, reused: boolean, resumed: boolean }>}
 */
function postToFace(info, request, agent = false) {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: '127.0.0.1',
        port: info.takEnrollPort,
        servername: info.takHost,
        method: 'POST',
        path: request.path,
        headers: {
          host: `${info.takHost}:${info.takEnrollPort}`,
          authorization: request.auth,
          accept: 'application/json',
          'content-type': 'text/plain;charset=UTF-8',
        },
        ca: info.chainPem,
        agent,
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        const socket = /** @type {import('node:tls').TLSSocket} */ (response.socket);
        const resumed = socket.isSessionReused();
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            ms: performance.now() - start,
            body: Buffer.concat(chunks),
            reused: outgoing.reusedSocket,
            resumed,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * @param {{ ms: number }[]} results @param {number} wallMs
 * @param {{ before: string, after: string }} load the load average before and after
 */
function figures(results, wallMs, load) {
  const ms = results.map((result) => result.ms);
  return {
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    max: Math.max(...ms),
    all: wallMs,
    load: `${load.before} → ${load.after}`,
  };
}

/**
 * Runs `phase` and gives its results and figures, the wall time and the load around it.
 * @template {{ ms: number }} R @param {() => Promise<R[]>} phase
 */
async function timed(phase) {
  const before = loadAverage();
  const start = performance.now();
  const results = await phase();
  const wall = performance.now() - start;
  return { results, figures: figures(results, wall, { before, after: loadAverage() }) };
}

/**
 * The devices' CSRs, made by openssl two at a time before the clock starts.
 * @param {{ callsign: string }[]} holders @param {string} csrDir
 */
async function makeCsrs(holders, csrDir) {
  await mkdir(csrDir, { recursive: true });
  /** @type {string[]} */
  const csrs = [];
  for (let index = 0; index < holders.length; index += 2) {
    const pair = holders.slice(index, index + 2);
    csrs.push(
      ...(await Promise.all(
        pair.map(async (holder) => {
          const file = path.join(csrDir, `${holder.callsign}.csr`);
          await run('openssl', [
            'req',
            '-new',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-keyout',
            path.join(csrDir, `${holder.callsign}.key`),
            '-out',
            file,
            '-subj',
            `/O=bench/OU=members/CN=${holder.callsign}`,
          ]);
          return readFile(file, 'utf8');
        }),
      )),
    );
  }
  return csrs;
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 * @param {{ name: string, url?: string }} engine
 */
async function enrollOnEngine({ quick, workDir, log }, engine) {
  const devices = quick ? 20 : 100;
  const one = quick ? 10 : 40;
  const loadBefore = loadAverage();
  const dataDir = path.join(workDir, `enroll-data-${engine.name}`);
  const databaseUrl =
    engine.url === undefined ? undefined : await createPostgresDatabase(engine.url, 'bench_enroll');
  const portal = await startChild(new URL('../lib/portal-process.mjs', import.meta.url).pathname, [
    JSON.stringify({
      dataDir,
      active: 0,
      pending: 0,
      keyHolders: devices + 2 + 3 * one,
      // The key pool full before the clock starts: its refill would compete with the first rows.
      waitForKeyPool: true,
      env: { PORTAL_KEYS_PER_HOUR: '1000000', PORTAL_RATE_LIMIT_FAILURES: '100000' },
      ...(databaseUrl ? { databaseUrl } : {}),
    }),
  ]);
  const { info } = portal;
  const server = {
    port: info.port,
    host: info.host,
    mtlsHost: info.mtlsHost,
    chainPem: info.chainPem,
  };
  const csrDir = path.join(workDir, `enroll-csrs-${engine.name}`);
  try {
    /** @type {{ callsign: string, certPem: string, keyPem: string }[]} */
    const holders = info.keyHolders;
    const csrs = await makeCsrs(holders, csrDir);
    const tokens = [];
    for (const holder of holders) {
      // Each member's code, asked for with their key as the member's page does.
      const answer = await requestOnce(server, {
        face: 'mtls',
        method: 'POST',
        path: '/api/v1/tak/enrollment-token',
        key: holder,
      });
      tokens.push(
        /** @type {{ username: string, token: string }} */ (JSON.parse(answer.body.toString())),
      );
    }

    const enrollOnce = (/** @type {number} */ index, /** @type {https.Agent | false} */ agent) => {
      const token = tokens[index];
      if (token === undefined) throw new Error(`no code for device ${index}`);
      return postToFace(
        info,
        {
          path: `/Marti/api/tls/signClient/v2?clientUid=bench-${index}&version=1`,
          auth: `Basic ${Buffer.from(`${token.username}:${token.token}`).toString('base64')}`,
          body: csrs[index] ?? '',
        },
        agent,
      );
    };
    const tls = { ca: info.chainPem, servername: info.takHost };
    const ways = [
      { name: 'keptAlive', agent: new https.Agent({ keepAlive: true, maxSockets: 1, ...tls }) },
      {
        name: 'resumed',
        agent: new https.Agent({ keepAlive: false, maxCachedSessions: 10, ...tls }),
      },
      { name: 'fullHandshake', agent: /** @type {const} */ (false) },
    ];
    // Devices from `devices` on enroll one at a time; the first two open the kept-alive
    // connection and make the TLS session to resume, untimed.
    let next = devices;
    for (const way of ways.slice(0, 2)) await enrollOnce(next++, way.agent);
    log(
      `  ${engine.name}: ${one} rounds of one device at a time: kept alive, TLS session resumed, full handshake`,
    );
    /** @type {Record<string, { status: number, ms: number, body: Buffer, reused: boolean, resumed: boolean }[]>} */
    const byWay = Object.fromEntries(ways.map((way) => [way.name, []]));
    const loadOneBefore = loadAverage();
    // Interleaved, in an order that turns each round, so that the machine's load falls on all alike.
    for (let round = 0; round < one; round += 1) {
      for (let k = 0; k < ways.length; k += 1) {
        const way = /** @type {(typeof ways)[number]} */ (ways[(round + k) % ways.length]);
        byWay[way.name]?.push(await enrollOnce(next++, way.agent));
      }
    }
    for (const way of ways) if (way.agent) way.agent.destroy();
    const loadOne = { before: loadOneBefore, after: loadAverage() };
    const oneAtATime = (/** @type {string} */ name) => {
      const results = byWay[name] ?? [];
      const wall = results.reduce((sum, result) => sum + result.ms, 0);
      return { results, figures: figures(results, wall, loadOne) };
    };
    const keptAlive = oneAtATime('keptAlive');
    const resumed = oneAtATime('resumed');
    const enrolledAlone = oneAtATime('fullHandshake');

    log(`  ${engine.name}: ${devices} devices enrolling at once`);
    const enroll = await timed(() =>
      Promise.all(tokens.slice(0, devices).map((_token, index) => enrollOnce(index, false))),
    );
    const serials = new Set(
      enroll.results
        .filter((result) => result.status === 200)
        .map((result) => JSON.parse(result.body.toString()).signedCert),
    );

    log(`  ${engine.name}: ${devices} .pfx downloads at once`);
    const pfx = await timed(() =>
      Promise.all(
        holders.slice(0, devices).map((holder) =>
          requestOnce(server, {
            face: 'mtls',
            path: `/api/v1/enduserpfx/${holder.callsign}`,
            key: holder,
          }),
        ),
      ),
    );
    const ok = (/** @type {{ results: { status: number }[] }} */ phase) =>
      phase.results.filter((result) => result.status === 200).length;
    return {
      engine: engine.name,
      devices,
      one,
      loadBefore,
      loadAfter: loadAverage(),
      keptAlive: {
        ...keptAlive.figures,
        ok: ok(keptAlive),
        n: one,
        onOneConnection: keptAlive.results.filter((result) => result.reused).length,
      },
      resumed: {
        ...resumed.figures,
        ok: ok(resumed),
        n: one,
        sessionsResumed: resumed.results.filter((result) => result.resumed).length,
      },
      enrollAlone: { ...enrolledAlone.figures, ok: ok(enrolledAlone), n: one },
      enroll: { ...enroll.figures, ok: ok(enroll), n: devices, distinctCertificates: serials.size },
      pfx: { ...pfx.figures, ok: ok(pfx), n: devices },
    };
  } finally {
    await portal.stop();
    await rm(csrDir, { recursive: true, force: true });
  }
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function enrollSection(context) {
  const limits = await physicalLimits(context);
  const runs = [];
  for (const engine of benchEngines()) runs.push(await enrollOnEngine(context, engine));
  const row = (
    /** @type {string} */ engine,
    /** @type {string} */ name,
    /** @type {{ p50: number, p95: number, max: number, all: number, load: string, ok: number, n: number }} */ f,
    note = '',
  ) => [
    engine,
    `${name}${note}`,
    `${f.ok}/${f.n}`,
    fmt(f.p50, 1),
    fmt(f.p95, 1),
    fmt(f.max, 1),
    fmt(f.all, 0),
    f.load,
  ];
  const rows = runs.flatMap((r) => [
    row(
      r.engine,
      `signClient/v2, one device at a time on one kept-alive connection`,
      r.keptAlive,
      ` (${r.keptAlive.onOneConnection}/${r.keptAlive.n} on the kept connection)`,
    ),
    row(
      r.engine,
      `signClient/v2, one device at a time, a new connection with the TLS session resumed`,
      r.resumed,
      ` (${r.resumed.sessionsResumed}/${r.resumed.n} resumed)`,
    ),
    row(r.engine, `signClient/v2, one device at a time, a new full handshake each`, r.enrollAlone),
    row(
      r.engine,
      `signClient/v2, ${r.devices} devices at once, a new connection each`,
      r.enroll,
      ` (${r.enroll.distinctCertificates} distinct certificates)`,
    ),
    row(r.engine, `enduserpfx (.pfx download), ${r.devices} at once`, r.pfx),
  ]);
  const markdown = [
    '## 7. TAK enrollment (issues 16 and 32)',
    '',
    'The device made its RSA-2048 key and CSR beforehand (not timed); the portal checks the code, ' +
      'verifies the CSR, signs and records the certificate and spends the code. One device at a ' +
      `time, ${runs[0]?.one ?? 0} rounds, each of one device in each of three ways in an order that turns ` +
      'each round: on one kept-alive connection (opened by one more device first), on a new ' +
      'connection resuming the TLS session the agent cached from the last one (made by one more ' +
      'device first), and on a new connection with a full handshake; "all of them" is their sum. ' +
      '.pfx: the portal makes each RSA-2048 key, signs, records and packs it (legacy PKCS#12). ' +
      'Budget: one device, kept alive or resumed, p50 < 10 ms.',
    '',
    limitsParagraph(limits),
    '',
    table(
      [
        'engine',
        'call',
        'answered 200',
        'p50 ms',
        'p95 ms',
        'max ms',
        'all of them ms',
        'load before → after',
      ],
      rows,
    ),
    '',
  ].join('\n');
  return { markdown, results: { limits, engines: runs } };
}
