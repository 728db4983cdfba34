// Section 6: one-scan TAK enrollment under a burst. 100 devices, each with its own key made
// beforehand (on a phone that is the phone's work, not the portal's), send their CSRs to the TAK
// enrollment face at once with their members' one-time codes; then the same 100 members download
// a .pfx at once (the portal makes each key). Every request is on its own new TLS connection.
// Before the burst, a few more devices enroll one at a time: the cost of one enrollment alone.
import { mkdir, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { fmt, loadAverage, percentile, run, startChild, table } from '../lib/common.mjs';
import { requestOnce } from '../lib/client.mjs';

/**
 * One request on a new connection to the enrollment face.
 * @param {{ takEnrollPort: number, takHost: string, chainPem: string }} info
 * @param {{ path: string, auth: string, body: string }} request
 * @returns {Promise<{ status: number, ms: number, body: Buffer }>}
 */
function postToFace(info, request) {
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
        agent: false,
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            ms: performance.now() - start,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** @param {{ ms: number }[]} results @param {number} wallMs */
function figures(results, wallMs) {
  const ms = results.map((result) => result.ms);
  return {
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    max: Math.max(...ms),
    all: wallMs,
  };
}

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function enrollSection({ quick, workDir, log }) {
  const devices = quick ? 20 : 100;
  const alone = quick ? 5 : 20;
  const loadBefore = loadAverage();
  const dataDir = path.join(workDir, 'enroll-data');
  const portal = await startChild(new URL('../lib/portal-process.mjs', import.meta.url).pathname, [
    JSON.stringify({
      dataDir,
      active: 0,
      pending: 0,
      keyHolders: devices + alone,
      env: { PORTAL_KEYS_PER_HOUR: '1000000', PORTAL_RATE_LIMIT_FAILURES: '100000' },
    }),
  ]);
  const { info } = portal;
  const server = {
    port: info.port,
    host: info.host,
    mtlsHost: info.mtlsHost,
    chainPem: info.chainPem,
  };
  try {
    /** @type {{ callsign: string, certPem: string, keyPem: string }[]} */
    const holders = info.keyHolders;
    // The devices' CSRs, made by openssl two at a time before the clock starts.
    const csrDir = path.join(workDir, 'enroll-csrs');
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
    // Each member's code, asked for with their key as the member's page does.
    const tokens = [];
    for (const holder of holders) {
      const answer = await new Promise((resolve, reject) => {
        const request = https.request(
          {
            host: '127.0.0.1',
            port: info.port,
            servername: info.mtlsHost,
            method: 'POST',
            path: '/api/v1/tak/enrollment-token',
            headers: { host: `${info.mtlsHost}:${info.port}`, 'content-type': 'application/json' },
            ca: info.chainPem,
            cert: holder.certPem,
            key: holder.keyPem,
            agent: false,
          },
          (response) => {
            /** @type {Buffer[]} */
            const chunks = [];
            response.on('data', (chunk) => chunks.push(chunk));
            response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
          },
        );
        request.on('error', reject);
        request.end();
      });
      tokens.push(/** @type {{ username: string, token: string }} */ (answer));
    }

    const enrollOnce = (/** @type {number} */ index) => {
      const token = tokens[index];
      if (token === undefined) throw new Error(`no code for device ${index}`);
      return postToFace(info, {
        path: `/Marti/api/tls/signClient/v2?clientUid=bench-${index}&version=1`,
        auth: `Basic ${Buffer.from(`${token.username}:${token.token}`).toString('base64')}`,
        body: csrs[index] ?? '',
      });
    };
    log(`  ${alone} devices enrolling one at a time`);
    /** @type {{ status: number, ms: number, body: Buffer }[]} */
    const enrolledAlone = [];
    const aloneStart = performance.now();
    for (let index = devices; index < devices + alone; index += 1) {
      enrolledAlone.push(await enrollOnce(index));
    }
    const aloneWall = performance.now() - aloneStart;
    const aloneOk = enrolledAlone.filter((result) => result.status === 200).length;

    log(`  ${devices} devices enrolling at once`);
    const enrollStart = performance.now();
    const enrolled = await Promise.all(
      tokens.slice(0, devices).map((_token, index) => enrollOnce(index)),
    );
    const enrollWall = performance.now() - enrollStart;
    const enrollOk = enrolled.filter((result) => result.status === 200).length;
    const serials = new Set(
      enrolled
        .filter((result) => result.status === 200)
        .map((result) => JSON.parse(result.body.toString()).signedCert),
    );

    log(`  ${devices} .pfx downloads at once`);
    const pfxStart = performance.now();
    const downloaded = await Promise.all(
      holders.slice(0, devices).map((holder) =>
        requestOnce(server, {
          face: 'mtls',
          path: `/api/v1/enduserpfx/${holder.callsign}`,
          key: holder,
        }),
      ),
    );
    const pfxWall = performance.now() - pfxStart;
    const pfxOk = downloaded.filter((result) => result.status === 200).length;

    const enroll = figures(enrolled, enrollWall);
    const pfx = figures(downloaded, pfxWall);
    const enrollAlone = figures(enrolledAlone, aloneWall);
    const results = {
      devices,
      enrollAlone: { ...enrollAlone, devices: alone, ok: aloneOk },
      enroll: { ...enroll, ok: enrollOk, distinctCertificates: serials.size },
      pfx: { ...pfx, ok: pfxOk },
    };
    const row = (
      /** @type {string} */ name,
      /** @type {ReturnType<typeof figures>} */ f,
      /** @type {number} */ ok,
      count = devices,
    ) => [name, `${ok}/${count}`, fmt(f.p50, 0), fmt(f.p95, 0), fmt(f.max, 0), fmt(f.all, 0)];
    const markdown = [
      '## TAK enrollment burst',
      '',
      `${devices} members at once, each request on its own new TLS connection, ${info.engine}. ` +
        'Enrollment: the device made its RSA-2048 key and CSR beforehand (not timed); the portal ' +
        'checks the code, verifies the CSR, signs and records the certificate and spends the code. ' +
        '.pfx: the portal makes each RSA-2048 key, signs, records and packs it (legacy PKCS#12).',
      '',
      table(
        ['call', 'answered 200', 'p50 ms', 'p95 ms', 'max ms', 'all of them ms'],
        [
          row(`POST signClient/v2, ${alone} devices one at a time`, enrollAlone, aloneOk, alone),
          row(`POST signClient/v2, ${devices} devices at once`, enroll, enrollOk),
          row(`GET enduserpfx (.pfx download), ${devices} at once`, pfx, pfxOk),
        ],
      ),
      '',
      `Distinct certificates enrolled: ${serials.size} of ${enrollOk}. Load average before ${loadBefore}, after ${loadAverage()}.`,
      '',
    ].join('\n');
    return { markdown, results };
  } finally {
    await portal.stop();
    await rm(path.join(workDir, 'enroll-csrs'), { recursive: true, force: true });
  }
}
