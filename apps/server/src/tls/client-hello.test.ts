import { execFile } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientHelloReader, DEFAULT_CLIENT_HELLO_LIMITS, readClientHello } from './client-hello.js';

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

/** A TLS handshake record around `payload`. */
function record(payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from([0x16, 0x03, 0x01, payload.length >> 8, payload.length & 0xff]),
    payload,
  ]);
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

  it('reads a hello fed a byte at a time, looking at each byte once', async () => {
    const hello = await captureHello(nodeClient('mtls.portal.localhost'));
    const reader = new ClientHelloReader();
    const answers = [...hello].map((byte) => reader.push(Buffer.from([byte])));
    expect(answers.slice(0, -1).every((answer) => answer.kind === 'incomplete')).toBe(true);
    expect(answers.at(-1)).toEqual({ kind: 'hello', serverName: 'mtls.portal.localhost' });
    expect(reader.bytesScanned).toBe(hello.length);
  });

  it(`reads a hello spread over ${DEFAULT_CLIENT_HELLO_LIMITS.maxRecords} records, refuses one over more`, async () => {
    const hello = await captureHello(nodeClient('mtls.portal.localhost'));
    const spread = (records: number) => {
      const body = hello.subarray(5);
      const cut = (index: number) => Math.floor((index * body.length) / records);
      const parts = Array.from({ length: records }, (_, index) =>
        record(body.subarray(cut(index), cut(index + 1))),
      );
      return Buffer.concat(parts);
    };
    const { maxRecords } = DEFAULT_CLIENT_HELLO_LIMITS;
    expect(readClientHello(spread(maxRecords))).toEqual({
      kind: 'hello',
      serverName: 'mtls.portal.localhost',
    });
    expect(readClientHello(spread(maxRecords + 1))).toEqual({
      kind: 'refused',
      reason: `a hello in more than ${maxRecords} records`,
    });
  });

  it('refuses what no client sends: an empty record, a record over 2^14, a hello over the limit', () => {
    const helloHeader = (length: number) =>
      Buffer.from([0x01, length >> 16, (length >> 8) & 0xff, length & 0xff]);
    expect(readClientHello(record(Buffer.alloc(0)))).toEqual({
      kind: 'refused',
      reason: 'an empty handshake record',
    });
    expect(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x40, 0x01]))).toEqual({
      kind: 'refused',
      reason: 'a record over 2^14 bytes',
    });
    const { maxHelloBytes } = DEFAULT_CLIENT_HELLO_LIMITS;
    expect(readClientHello(record(helloHeader(maxHelloBytes - 4)))).toEqual({ kind: 'incomplete' });
    expect(readClientHello(record(helloHeader(maxHelloBytes - 3)))).toEqual({
      kind: 'refused',
      reason: `a hello over ${maxHelloBytes} bytes`,
    });
    expect(readClientHello(record(Buffer.from([0x02, 0, 0, 1])))).toEqual({
      kind: 'refused',
      reason: 'a handshake that is not a ClientHello',
    });
  });

  it('cuts the split-record attack (64 KB of empty records) at its first record', () => {
    const reader = new ClientHelloReader();
    const empty = record(Buffer.alloc(0));
    let pushes = 0;
    for (let sent = 0; sent < 64 * 1024; sent += empty.length) {
      pushes += 1;
      if (reader.push(empty).kind !== 'incomplete') break;
    }
    expect(pushes).toBe(1);
    expect(reader.bytesScanned).toBe(5);
  });

  it('costs work linear in the bytes however many records a hello is cut into', () => {
    // Without the record cap: one-byte records, each pushed alone, as a drip would send them.
    const work = (records: number) => {
      const reader = new ClientHelloReader({ maxHelloBytes: 1 << 20, maxRecords: Infinity });
      const announced = 1 << 19;
      const header = Buffer.from([0x01, announced >> 16, (announced >> 8) & 0xff, 0]);
      for (const byte of header) reader.push(record(Buffer.from([byte])));
      for (let index = 0; index < records; index += 1) {
        expect(reader.push(record(Buffer.from([0x00])))).toEqual({ kind: 'incomplete' });
      }
      return reader.bytesScanned;
    };
    const n = 2_000;
    expect(work(n)).toBe((4 + n) * 6);
    expect(work(4 * n)).toBe((4 + 4 * n) * 6);
  });

  it('recognises plain HTTP as not TLS', () => {
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toEqual({
      kind: 'not-tls',
    });
  });
});
