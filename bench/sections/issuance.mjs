// Section 1: certificate issuance. The same work (RSA-2048 key, certificate signed by the
// portal's issuing CA, legacy PKCS#12 with the chain) done by the portal's API over TLS, by its
// CA module alone, by the OpenSSL CLI and by CFSSL, interleaved in rounds so that the load of the
// machine falls on all of them alike.
import { generateKeyPair } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  ci95,
  fmt,
  importServer,
  loadAverage,
  mean,
  percentile,
  run,
  startChild,
  table,
} from '../lib/common.mjs';

const generate = promisify(generateKeyPair);

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function issuanceSection({ quick, workDir, log }) {
  const loadBefore = loadAverage();
  const dataDir = path.join(workDir, 'issuance-data');
  // Two more members with keys, one per lane of the two-in-flight figure (a member has one mint
  // in flight at a time), and the hourly limit of new keys lifted: this measures the work. The
  // limit of keys a member holds is raised to its maximum too: lane 0 downloads 73 keys in full
  // mode, and past 10 each download supersedes the oldest key, the very one the lane connects with.
  // (`PORTAL_MAX_KEYS_PER_MEMBER` allows at most 1000.)
  const portal = await startChild(new URL('../lib/portal-process.mjs', import.meta.url).pathname, [
    JSON.stringify({
      dataDir,
      active: 0,
      pending: 0,
      keyHolders: 2,
      env: { PORTAL_KEYS_PER_HOUR: '1000000', PORTAL_MAX_KEYS_PER_MEMBER: '1000' },
    }),
  ]);
  const { info } = portal;
  try {
    const { CertificateAuthority } = await importServer('ca/authority.js');
    const { buildPkcs12 } = await importServer('ca/pkcs12.js');
    const ca = await CertificateAuthority.loadOrCreate({
      dir: path.join(dataDir, 'ca'),
      publicBaseUrl: `https://${info.host}:${info.port}`,
    });
    // What a download does but the database: key, certificate, legacy keystore.
    const caModule = async () => {
      const issued = await ca.issueMemberCertificate({
        callsign: 'BenchMember',
        validityDays: 365,
        keyAlgorithm: 'rsa-2048',
      });
      return buildPkcs12({
        privateKeyPem: issued.privateKeyPem,
        certificatePem: issued.certificatePem,
        chainPem: issued.chainPem,
        password: 'BenchMember',
        friendlyName: 'BenchMember',
        format: 'legacy',
      });
    };

    // OpenSSL and CFSSL sign with the very same issuing CA key and certificate.
    const sslDir = path.join(workDir, 'issuance-openssl');
    await run('mkdir', ['-p', sslDir]);
    const caCert = path.join(dataDir, 'ca/issuing-ca.pem');
    const caKey = path.join(dataDir, 'ca/issuing-ca-key.pem');
    const chain = info.chainFile;
    // The portal's own URLs: plain http on its port (config.httpCaOrigin).
    const origin = `http://${info.host}:${info.port}`;
    await writeFile(
      path.join(sslDir, 'ext.cnf'),
      [
        '[member]',
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature, keyEncipherment',
        'extendedKeyUsage = clientAuth',
        'subjectKeyIdentifier = hash',
        'authorityKeyIdentifier = keyid',
        `crlDistributionPoints = URI:${origin}/ca/crl.der`,
        `authorityInfoAccess = OCSP;URI:${origin}/ca/ocsp, caIssuers;URI:${origin}/ca/issuing-ca.der`,
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(sslDir, 'cfssl.json'),
      JSON.stringify({
        signing: {
          default: {
            expiry: '8760h',
            usages: ['digital signature', 'key encipherment', 'client auth'],
          },
        },
      }),
    );
    await writeFile(
      path.join(sslDir, 'csr.json'),
      JSON.stringify({ CN: 'BenchMember', key: { algo: 'rsa', size: 2048 } }),
    );

    /** @type {{ callsign: string, certPem: string, keyPem: string }[]} */
    const lanes = [info.member, ...info.keyHolders];
    const agents = lanes.map(
      (member) =>
        new https.Agent({
          keepAlive: true,
          maxSockets: 1,
          cert: member.certPem,
          key: member.keyPem,
          ca: info.chainPem,
          servername: info.mtlsHost,
        }),
    );
    let apiBytes = 0;
    /** @param {number} lane 0: one at a time; 1 and 2: the two in flight, one member each */
    const apiDownload = (lane = 0) =>
      new Promise((resolve, reject) => {
        const request = https.request(
          {
            host: '127.0.0.1',
            port: info.port,
            path: `/api/v1/enduserpfx/${lanes[lane].callsign}`,
            headers: { host: `${info.mtlsHost}:${info.port}` },
            agent: agents[lane],
            servername: info.mtlsHost,
          },
          (response) => {
            /** @type {Buffer[]} */
            const chunks = [];
            response.on('data', (chunk) => chunks.push(chunk));
            response.on('end', () => {
              if (response.statusCode !== 200) {
                reject(new Error(`enduserpfx answered ${response.statusCode}`));
                return;
              }
              apiBytes = Buffer.concat(chunks).length;
              resolve(undefined);
            });
          },
        );
        request.on('error', reject);
        request.end();
      });

    let serial = 1;
    /** @param {string} dir */
    const openssl = async (dir) => {
      const n = serial++;
      const base = path.join(dir, `m${n % 4}`);
      await run('openssl', [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${base}.key`,
        '-subj',
        '/CN=BenchMember',
        '-out',
        `${base}.csr`,
      ]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        caCert,
        '-CAkey',
        caKey,
        '-set_serial',
        `0x${(BigInt(Date.now()) * 1000n + BigInt(n)).toString(16)}`,
        '-days',
        '365',
        '-sha256',
        '-extfile',
        path.join(dir, 'ext.cnf'),
        '-extensions',
        'member',
        '-out',
        `${base}.crt`,
      ]);
      await run('openssl', [
        'pkcs12',
        '-export',
        '-legacy',
        '-inkey',
        `${base}.key`,
        '-in',
        `${base}.crt`,
        '-certfile',
        chain,
        '-name',
        'BenchMember',
        '-passout',
        'pass:BenchMember',
        '-out',
        `${base}.pfx`,
      ]);
    };
    const cfssl = async () => {
      const { stdout } = await run('cfssl', [
        'gencert',
        '-loglevel',
        '5',
        '-ca',
        caCert,
        '-ca-key',
        caKey,
        '-config',
        path.join(sslDir, 'cfssl.json'),
        path.join(sslDir, 'csr.json'),
      ]);
      if (!stdout.includes('"cert"')) throw new Error('cfssl gencert wrote no certificate');
    };

    const haveCfssl = await run('cfssl', ['version']).then(
      () => true,
      () => false,
    );

    /** @type {{ id: string, label: string, work: (lane?: number) => Promise<unknown> }[]} */
    const methods = [
      { id: 'api', label: 'portal API `GET enduserpfx` (mTLS, keep-alive)', work: apiDownload },
      {
        id: 'ca',
        label: 'portal CA module: `issueMemberCertificate` + `buildPkcs12` (legacy)',
        work: caModule,
      },
      {
        id: 'nodeKeygen',
        label: 'Node `generateKeyPair` RSA-2048 alone',
        work: () => generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 }),
      },
      {
        id: 'openssl',
        label: 'OpenSSL CLI `req -newkey` + `x509 -req` + `pkcs12 -export -legacy`',
        work: () => openssl(sslDir),
      },
      {
        id: 'opensslKeygen',
        label: 'OpenSSL CLI `genpkey` RSA-2048 alone',
        work: () =>
          run('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']),
      },
    ];
    if (haveCfssl) {
      methods.push({
        id: 'cfssl',
        label: 'CFSSL `gencert` (key + signing, no PKCS#12)',
        work: cfssl,
      });
    }

    // Warm up every path once (JIT, first connection, page cache).
    for (const method of methods) await method.work();

    const rounds = quick ? 2 : 12;
    const perRound = quick ? 3 : 6;
    /** @type {Record<string, number[]>} */
    const samples = Object.fromEntries(methods.map((m) => [m.id, []]));
    for (let round = 0; round < rounds; round++) {
      // A different order each round, so no method always follows the same neighbour.
      const order = [...methods].sort(() => Math.random() - 0.5);
      for (const method of order) {
        for (let i = 0; i < perRound; i++) {
          const start = performance.now();
          await method.work();
          samples[method.id].push(performance.now() - start);
        }
      }
      log(`  issuance round ${round + 1}/${rounds}`);
    }

    // Throughput with two in flight (one per core), also interleaved.
    const parallelTotal = quick ? 4 : 20;
    /** @type {Record<string, number>} */
    const parallelMs = Object.fromEntries(methods.map((m) => [m.id, 0]));
    for (let half = 0; half < 2; half++) {
      for (const method of half === 0 ? methods : [...methods].reverse()) {
        let left = parallelTotal / 2;
        const start = performance.now();
        /** @param {number} lane */
        const worker = async (lane) => {
          while (left > 0) {
            left--;
            await method.work(lane);
          }
        };
        await Promise.all([worker(1), worker(2)]);
        parallelMs[method.id] += performance.now() - start;
      }
    }
    for (const agent of agents) agent.destroy();

    const openSslMean = mean(samples.openssl);
    const rows = methods.map((method) => {
      const values = samples[method.id];
      const m = mean(values);
      return [
        method.label,
        values.length,
        fmt(1000 / m, 1),
        fmt((parallelTotal * 1000) / parallelMs[method.id], 1),
        `${fmt(m)} ± ${fmt(ci95(values))}`,
        fmt(percentile(values, 50)),
        fmt(percentile(values, 99)),
        method.id === 'openssl' ? '1.00' : fmt(m / openSslMean, 2),
      ];
    });
    const results = {
      samples: Object.fromEntries(methods.map((m) => [m.id, samples[m.id].length])),
      meanMs: Object.fromEntries(methods.map((m) => [m.id, mean(samples[m.id])])),
      p50Ms: Object.fromEntries(methods.map((m) => [m.id, percentile(samples[m.id], 50)])),
      p99Ms: Object.fromEntries(methods.map((m) => [m.id, percentile(samples[m.id], 99)])),
      parallelKeysPerSecond: Object.fromEntries(
        methods.map((m) => [m.id, (parallelTotal * 1000) / parallelMs[m.id]]),
      ),
      pfxBytes: apiBytes,
    };
    const ratioApi = results.meanMs.api / openSslMean;
    const ratioCa = results.meanMs.ca / openSslMean;
    const keygenShare = results.meanMs.nodeKeygen / results.meanMs.api;
    const loadAfter = loadAverage();
    const markdown = [
      '## 1. Certificate issuance',
      '',
      `Load average before: ${loadBefore}; after: ${loadAfter}. ${rounds} interleaved rounds of ${perRound} sequential samples per method; throughput at 2 in flight from ${parallelTotal} more per method. Latencies in ms (mean ± 95 % CI, p50, p99). Keys/s sequential = 1000 / mean.`,
      '',
      table(
        [
          'method',
          'n',
          'keys/s (1 at a time)',
          'keys/s (2 in flight)',
          'mean ms',
          'p50 ms',
          'p99 ms',
          'mean / OpenSSL',
        ],
        rows,
      ),
      '',
      `- Budget "within 1.5x of OpenSSL": API ${fmt(ratioApi, 2)}x, CA module ${fmt(ratioCa, 2)}x → ${ratioApi <= 1.5 ? '**met**' : '**missed**'}.`,
      `- Budget "key download dominated by RSA-2048 keygen": Node's keygen alone takes ${fmt(results.meanMs.nodeKeygen, 0)} ms on average, ${fmt(keygenShare * 100, 0)} % of the API's mean download time → ${keygenShare >= 0.5 ? '**met**' : '**missed**'}${quick ? ' (quick mode: too few samples for a firm ratio)' : ''}.`,
      `- PKCS#12 size from the API: ${apiBytes} bytes. ${haveCfssl ? 'CFSSL packs no PKCS#12, so its figure covers key and signing only.' : 'cfssl was not found: CFSSL not measured.'}`,
      '',
    ].join('\n');
    return {
      markdown,
      results: { ...results, ratioApi, ratioCa, keygenShare, loadBefore, loadAfter },
    };
  } finally {
    await portal.stop();
  }
}
