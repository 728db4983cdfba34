import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlainListener } from '../http/plain-listener.js';
import { createDualFaceServer } from './dual-face-server.js';
import type { PortalListener } from './listener.js';
import { REQUEST_TIMEOUTS, type RequestTimeouts } from './request-timeouts.js';
import { selfSignedServerCredentials } from './server-credentials.testing.js';
import { createTakEnrollServer } from './tak-enroll-server.js';

// Every listener of the portal ends a request that trickles in (docs/api.md), with small limits
// here so that the test is quick; the real limits are REQUEST_TIMEOUTS.

const TIMEOUTS: RequestTimeouts = { headersMs: 400, requestMs: 800, keepAliveMs: 400 };
/** Far above each limit (a loaded machine), far below Node's own 300 s. */
const ENDED_WITHIN_MS = 10_000;
/** Far above the idle limit, below Node's own 5 s. */
const IDLE_ENDED_WITHIN_MS = 4_000;
const MTLS_HOST = 'mtls.portal.test';

const serverCredentials = selfSignedServerCredentials();
const running: PortalListener[] = [];
const clients: net.Socket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(running.splice(0).map((listener) => listener.close(0)));
});

/** Answers once the whole body has arrived, as the application's body parser does. */
function afterBody(request: IncomingMessage, response: ServerResponse) {
  request.resume();
  request.on('end', () => response.end('ok'));
}

/** Both faces of the portal, one listener. */
function dualFace(): PortalListener {
  const credentials = serverCredentials();
  return createDualFaceServer({
    credentials,
    clientCaPem: [credentials.cert],
    mtlsHost: MTLS_HOST,
    httpsOrigin: 'https://portal.test',
    handler: afterBody,
    requestTimeouts: TIMEOUTS,
  });
}

/** Each listener of the portal, and the server name a TLS client gives it (none: plain HTTP). */
const listeners: Record<string, { tls: string | undefined; make: () => PortalListener }> = {
  'the public face': { tls: 'portal.test', make: dualFace },
  'the mTLS face': { tls: MTLS_HOST, make: dualFace },
  'the TAK enrollment face': {
    tls: 'tak.portal.test',
    make: () =>
      createTakEnrollServer({
        credentials: serverCredentials(),
        handler: afterBody,
        requestTimeouts: TIMEOUTS,
      }),
  },
  'the plain listener behind a proxy': {
    tls: undefined,
    make: () => createPlainListener(afterBody, {}, TIMEOUTS),
  },
};

/** A connection to a new `listener` that has sent `words`, and how long until it is closed. */
async function sent(listenerName: string, words: string): Promise<() => Promise<number>> {
  const { tls: serverName, make } = listeners[listenerName] ?? {};
  if (make === undefined) throw new Error(listenerName);
  const listener = make();
  running.push(listener);
  await listener.listen(0, '127.0.0.1');
  const port = (listener.listener.address() as net.AddressInfo).port;
  const socket: net.Socket =
    serverName === undefined
      ? net.connect({ port, host: '127.0.0.1' })
      : tls.connect({ port, host: '127.0.0.1', servername: serverName, rejectUnauthorized: false });
  socket.on('error', () => undefined);
  socket.resume();
  clients.push(socket);
  await new Promise((resolve) =>
    socket.once(serverName === undefined ? 'connect' : 'secureConnect', resolve),
  );
  const started = Date.now();
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      resolve(Date.now() - started);
    });
  });
  socket.write(words);
  return () =>
    Promise.race([
      closed,
      new Promise<number>((resolve) => {
        setTimeout(() => {
          resolve(Infinity);
        }, ENDED_WITHIN_MS);
      }),
    ]);
}

describe.each(Object.keys(listeners))('%s', (listenerName) => {
  it('ends a request whose body trickles (Content-Length: 9000, one byte sent)', async () => {
    const closedAfter = await sent(
      listenerName,
      'POST /ca/ocsp HTTP/1.1\r\nHost: portal.test\r\nContent-Length: 9000\r\n\r\nA',
    );
    expect(await closedAfter()).toBeLessThan(ENDED_WITHIN_MS);
  });

  it('ends a request whose headers never end', async () => {
    const closedAfter = await sent(listenerName, 'POST /ca/ocsp HTTP/1.1\r\nHost: portal.test\r\n');
    expect(await closedAfter()).toBeLessThan(ENDED_WITHIN_MS);
  });

  it('closes a kept-alive connection idle after its answer', async () => {
    const closedAfter = await sent(
      listenerName,
      'GET /ca/ocsp HTTP/1.1\r\nHost: portal.test\r\n\r\n',
    );
    expect(await closedAfter()).toBeLessThan(IDLE_ENDED_WITHIN_MS);
  });
});

describe('the limits themselves', () => {
  it('end the headers within 10 s, the whole request within 30 s, an idle connection within 5 s', () => {
    expect(REQUEST_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
  });
});
