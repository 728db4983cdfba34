// The physical limit of the stack: one bare Fastify route behind the same dual-face TLS listener
// as the portal (same server certificate, same client-certificate request on the mTLS face).
//
// Usage: node bare-process.mjs PORTAL_DATA_DIR MTLS_HOST PUBLIC_ORIGIN
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { importServer } from './common.mjs';

const { createDualFaceServer } = await importServer('tls/dual-face-server.js');
const { default: Fastify } = await import('fastify');

const [dataDir, mtlsHost, origin] = process.argv.slice(2);
const read = (/** @type {string} */ file) => readFile(path.join(dataDir, file), 'utf8');
const credentials = {
  cert: await read('tls/server.crt.pem'),
  key: await read('tls/server.key.pem'),
};
const clientCaPem = [await read('ca/issuing-ca.pem'), await read('ca/root-ca.pem')];

const app = Fastify({ logger: false });
app.get('/api/v1/bare', () => ({ ok: true }));
await app.ready();
const server = createDualFaceServer({
  credentials,
  clientCaPem,
  mtlsHost,
  httpsOrigin: origin,
  handler: (request, response) => {
    app.routing(request, response);
  },
});
await server.listen(0, '127.0.0.1');
const address = server.listener.address();
process.stdout.write(`${JSON.stringify({ pid: process.pid, port: address.port })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
