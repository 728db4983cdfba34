import { execFile } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { readClientHello } from './client-hello.js';

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** The first bytes a real TLS client sends, caught by a plain TCP server. */
async function captureHello(connect: (port: number) => void): Promise<Buffer> {
  const server = net.createServer();
  servers.push(server);
  const hello = new Promise<Buffer>((resolve) => {
    server.on('connection', (socket) => {
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        if (readClientHello(data).kind !== 'incomplete') {
          resolve(data);
          socket.destroy();
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  connect(address.port);
  return hello;
}

function nodeClient(servername?: string) {
  return (port: number) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
    socket.on('error', () => undefined);
  };
}

describe('readClientHello', () => {
  it('reads the server name a Node TLS client sends', async () => {
    const hello = await captureHello(nodeClient('mtls.portal.localhost'));
    expect(readClientHello(hello)).toEqual({ kind: 'hello', serverName: 'mtls.portal.localhost' });
  });

  it('reads the server name openssl s_client sends, lower-cased', async () => {
    const hello = await captureHello((port) => {
      const child = execFile('openssl', [
        's_client',
        '-connect',
        `127.0.0.1:${port}`,
        '-servername',
        'MTLS.Portal.Localhost',
      ]);
      child.on('error', () => undefined);
      child.stdin?.end();
    });
    expect(readClientHello(hello)).toEqual({ kind: 'hello', serverName: 'mtls.portal.localhost' });
  });

  it('reports no name when the client sends none (e.g. an IP address)', async () => {
    const hello = await captureHello(nodeClient(''));
    expect(readClientHello(hello)).toEqual({ kind: 'hello', serverName: undefined });
  });

  it('waits for the rest of a hello that arrives in pieces', async () => {
    const hello = await captureHello(nodeClient('portal.localhost'));
    for (const cut of [1, 4, 5, 6, 40, hello.length - 1]) {
      expect(readClientHello(hello.subarray(0, cut))).toEqual({ kind: 'incomplete' });
    }
  });

  it('reads a hello split across two TLS records', async () => {
    const hello = await captureHello(nodeClient('mtls.portal.localhost'));
    const body = hello.subarray(5);
    const first = body.subarray(0, 50);
    const second = body.subarray(50);
    const record = (payload: Buffer) =>
      Buffer.concat([
        Buffer.from([0x16, 0x03, 0x01, payload.length >> 8, payload.length & 0xff]),
        payload,
      ]);
    const split = Buffer.concat([record(first), record(second)]);
    expect(readClientHello(split)).toEqual({ kind: 'hello', serverName: 'mtls.portal.localhost' });
  });

  it('recognises plain HTTP as not TLS', () => {
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toEqual({
      kind: 'not-tls',
    });
  });
});
