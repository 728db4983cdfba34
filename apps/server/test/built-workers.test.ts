import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from './support/processes.js';
import { SERVER_DIST } from './support/repo.js';

// The worker threads of the build (`npm run build` first): the key pool's, the packing and
// signing threads' and the CRL's modules are compiled into dist/ca/workers and start there with
// no TypeScript hooks, in a plain Node process as the service runs them (docs/architecture.md,
// "Work off the event loop").
const fromServer = createRequire(path.join(SERVER_DIST, 'main.js'));
const url = (file: string) => pathToFileURL(file).href;
const SCRIPT = `
import '${url(fromServer.resolve('reflect-metadata'))}';
import { webcrypto } from 'node:crypto';
import * as x509 from '${url(fromServer.resolve('@peculiar/x509'))}';
import { signCrl } from '${url(path.join(SERVER_DIST, 'ca/crl.js'))}';
import { KeyPool } from '${url(path.join(SERVER_DIST, 'ca/key-pool.js'))}';
import { Pkcs12Workers } from '${url(path.join(SERVER_DIST, 'ca/pkcs12-workers.js'))}';

const keys = new KeyPool({ algorithm: 'ecdsa-p256', size: 1, lowWater: 0, busy: () => false });
// A thread that cannot start stops the pool: then it is no longer running.
while (keys.available === 0 && keys.running) await new Promise((done) => setTimeout(done, 20));
const pooled = keys.available;
await keys.close();

const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' };
const pair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
  'sign',
  'verify',
]);
const certificate = await x509.X509CertificateGenerator.createSelfSigned(
  { name: 'CN=Built Workers CA', keys: pair, signingAlgorithm, serialNumber: '01' },
  webcrypto,
);
const workers = new Pkcs12Workers(1);
const truststore = await workers.trustStore({
  certificatesPem: [certificate.toString('pem')],
  password: 'atakatak',
  friendlyNamePrefix: 'built',
});
await workers.close();

const now = Date.now();
const crl = await signCrl(
  { certificate, signingAlgorithm, privateKey: pair.privateKey, crypto: webcrypto },
  {
    revoked: [{ serial: '0a', revokedAt: now, reason: 'keyCompromise' }],
    crlNumber: 1n,
    thisUpdate: new Date(now),
    nextUpdate: new Date(now + 86_400_000),
  },
);
console.log(JSON.stringify({ pooled, truststore: truststore.length, crl: crl.pem, ca: certificate.toString('pem') }));
`;

describe('the built worker threads', () => {
  it('make a pooled key, pack a truststore and encode a CRL from dist/, with no hooks', async () => {
    // A file, not --eval or stdin: worker threads inherit the process's options (--input-type).
    const dir = await mkdtemp(path.join(os.tmpdir(), 'built-workers-'));
    const script = path.join(dir, 'workers.mjs');
    await writeFile(script, SCRIPT);
    const result = await run(process.execPath, [script]).finally(() =>
      rm(dir, { recursive: true, force: true }),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const done = JSON.parse(result.stdout) as {
      pooled: number;
      truststore: number;
      crl: string;
      ca: string;
    };
    expect(done.pooled).toBe(1);
    expect(done.truststore).toBeGreaterThan(0);
    expect(done.crl).toMatch(/^-----BEGIN X509 CRL-----/);
    expect(new X509Certificate(done.ca).subject).toBe('CN=Built Workers CA');
  });
});
