// Requests for the guesses section (sections/guesses.mjs and its flood worker): kept-alive TLS
// agents bound to a loopback address, invite checks with a right or a wrong code.
import https from 'node:https';

export const INVITE_CHECK = '/api/v1/enrollment/invitecode?invitecode=';
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * @typedef {{ port: number, host: string, chainPem: string }} Server
 * @typedef {{ certPem: string, keyPem: string }} Key
 */

/**
 * 8 random symbols of the code alphabet: an invite code's shape, so the portal evaluates it
 * (the seed's invite, 9 long, is never one of them).
 */
export function wrongCode() {
  let code = '';
  for (let index = 0; index < 8; index += 1) {
    code += ALPHABET[Math.floor(Math.random() * ALPHABET.length)];
  }
  return code;
}

/**
 * A kept-alive agent whose connections come from `localAddress`.
 * @param {Server} server @param {string} localAddress @param {Key} [key] @param {number} [sockets]
 */
export function agentFor(server, localAddress, key, sockets = 1) {
  return new https.Agent({
    keepAlive: true,
    maxSockets: sockets,
    ca: server.chainPem,
    localAddress,
    ...(key ? { cert: key.certPem, key: key.keyPem } : {}),
  });
}

/**
 * A GET on `agent`, SNI and Host naming the face `host`; resolves with the status (0 for a
 * connection error) and the body.
 * @param {Server} server @param {https.Agent} agent @param {string} host @param {string} urlPath
 * @returns {Promise<{ status: number, body: string }>}
 */
export function get(server, agent, host, urlPath) {
  return new Promise((resolve) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: urlPath,
        servername: host,
        headers: { host: `${host}:${server.port}` },
        agent,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', () => resolve({ status: 0, body }));
      },
    );
    request.on('error', () => resolve({ status: 0, body: '' }));
    request.end();
  });
}
