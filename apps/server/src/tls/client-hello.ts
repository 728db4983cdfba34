/**
 * Reads the server name (SNI) from the first bytes of a TLS connection, so the listener can hand
 * the connection to the face the client asked for before any TLS is spoken: the public face must
 * never send a certificate request, the mTLS face always does (RFC 8446 §4.1.2, RFC 6066 §3).
 *
 * The reader is fed the connection's chunks as they arrive and looks at each byte once, so a
 * hello sent a byte or a record at a time costs no more than one sent whole; it refuses what no
 * real client sends (empty or oversized records, more records or a larger hello than the limits)
 * instead of waiting for it.
 */

export type ClientHelloResult =
  | { kind: 'incomplete' }
  | { kind: 'not-tls' }
  | { kind: 'hello'; serverName: string | undefined }
  /** Looks like TLS but breaks its rules or our limits: hang up. */
  | { kind: 'refused'; reason: string };

export interface ClientHelloLimits {
  /** Largest ClientHello handshake message, header included. */
  maxHelloBytes: number;
  /** Most TLS records the hello may be spread over. */
  maxRecords: number;
}

/**
 * Real hellos are 0.2–2 KB (a post-quantum key share included) and come in one record; a few
 * tools split them in two or three. The limits leave ample room and bound the memory and work
 * a connection can claim before it has said who it is.
 */
export const DEFAULT_CLIENT_HELLO_LIMITS: ClientHelloLimits = {
  maxHelloBytes: 16 * 1024,
  maxRecords: 32,
};

const RECORD_HEADER = 5;
/** RFC 8446 §5.1: a record's plaintext is at most 2^14 bytes. */
const MAX_RECORD_PAYLOAD = 2 ** 14;
const HANDSHAKE_HEADER = 4;
const CONTENT_TYPE_HANDSHAKE = 0x16;
const HANDSHAKE_CLIENT_HELLO = 0x01;
const EXTENSION_SERVER_NAME = 0x0000;
const NAME_TYPE_HOST = 0x00;

/**
 * One connection's hello, read incrementally: `push` each chunk as it arrives; the answer stays
 * `incomplete` until the hello is whole, then is final (later pushes return it unchanged).
 */
export class ClientHelloReader {
  /** Bytes looked at so far; never more than the bytes pushed (the work is linear). */
  bytesScanned = 0;
  private readonly limits: ClientHelloLimits;
  private readonly recordHeader = Buffer.alloc(RECORD_HEADER);
  private recordHeaderFilled = 0;
  /** Payload bytes of the current record still to come; 0 while reading a record header. */
  private recordRemaining = 0;
  private records = 0;
  private readonly helloHeader = Buffer.alloc(HANDSHAKE_HEADER);
  private helloHeaderFilled = 0;
  /** Allocated once the hello's length is known; holds the whole handshake message. */
  private hello: Buffer | undefined;
  private helloFilled = 0;
  private result: ClientHelloResult = { kind: 'incomplete' };

  constructor(limits: ClientHelloLimits = DEFAULT_CLIENT_HELLO_LIMITS) {
    this.limits = limits;
  }

  push(chunk: Buffer): ClientHelloResult {
    let offset = 0;
    while (offset < chunk.length && this.result.kind === 'incomplete') {
      offset +=
        this.recordRemaining === 0
          ? this.readRecordHeader(chunk, offset)
          : this.readRecordPayload(chunk, offset);
    }
    this.bytesScanned += offset;
    return this.result;
  }

  /** Consumes payload of the current record from `chunk` at `offset`; returns how much. */
  private readRecordPayload(chunk: Buffer, offset: number): number {
    const take = Math.min(this.recordRemaining, chunk.length - offset);
    this.recordRemaining -= take;
    this.readHandshake(chunk.subarray(offset, offset + take));
    return take;
  }

  /** Consumes record-header bytes from `chunk` at `offset`; returns how many it took. */
  private readRecordHeader(chunk: Buffer, offset: number): number {
    const take = Math.min(RECORD_HEADER - this.recordHeaderFilled, chunk.length - offset);
    chunk.copy(this.recordHeader, this.recordHeaderFilled, offset, offset + take);
    this.recordHeaderFilled += take;
    const header = this.recordHeader;
    if (header[0] !== CONTENT_TYPE_HANDSHAKE) {
      // The very first byte decides whether the peer speaks TLS at all (plain HTTP says "G").
      this.result =
        this.records === 0 ? { kind: 'not-tls' } : this.refuse('a non-handshake record');
      return take;
    }
    if (this.recordHeaderFilled >= 2 && header[1] !== 0x03) {
      this.result = this.refuse('not a TLS record version');
      return take;
    }
    if (this.recordHeaderFilled < RECORD_HEADER) return take;
    this.recordHeaderFilled = 0;
    this.records += 1;
    const length = header.readUInt16BE(3);
    if (length === 0) {
      // RFC 8446 §5.1 and RFC 5246 §6.2.1: handshake records are never empty.
      this.result = this.refuse('an empty handshake record');
    } else if (length > MAX_RECORD_PAYLOAD) {
      this.result = this.refuse('a record over 2^14 bytes');
    } else if (this.records > this.limits.maxRecords) {
      this.result = this.refuse(`a hello in more than ${this.limits.maxRecords} records`);
    } else {
      this.recordRemaining = length;
    }
    return take;
  }

  /** Adds record payload to the handshake message; decides once the message is whole. */
  private readHandshake(payload: Buffer): void {
    let offset = 0;
    if (this.hello === undefined) {
      const take = Math.min(HANDSHAKE_HEADER - this.helloHeaderFilled, payload.length);
      payload.copy(this.helloHeader, this.helloHeaderFilled, 0, take);
      this.helloHeaderFilled += take;
      offset = take;
      if (this.helloHeaderFilled < HANDSHAKE_HEADER) return;
      if (this.helloHeader[0] !== HANDSHAKE_CLIENT_HELLO) {
        this.result = this.refuse('a handshake that is not a ClientHello');
        return;
      }
      const size = HANDSHAKE_HEADER + this.helloHeader.readUIntBE(1, 3);
      if (size > this.limits.maxHelloBytes) {
        this.result = this.refuse(`a hello over ${this.limits.maxHelloBytes} bytes`);
        return;
      }
      this.hello = Buffer.alloc(size);
      this.helloFilled = this.helloHeader.copy(this.hello);
    }
    this.helloFilled += payload.copy(this.hello, this.helloFilled, offset);
    if (this.helloFilled === this.hello.length) {
      this.result = { kind: 'hello', serverName: serverNameOf(this.hello) };
    }
  }

  private refuse(reason: string): ClientHelloResult {
    return { kind: 'refused', reason };
  }
}

/** Reads a hello from bytes received so far, all at once (a fresh reader per call). */
export function readClientHello(
  data: Buffer,
  limits: ClientHelloLimits = DEFAULT_CLIENT_HELLO_LIMITS,
): ClientHelloResult {
  return new ClientHelloReader(limits).push(data);
}

/** The host name of the server_name extension, lower-cased; undefined when there is none. */
function serverNameOf(hello: Buffer): string | undefined {
  try {
    return serverNameFrom(hello);
  } catch {
    // Lengths that point past the end: let the TLS stack reject the hello on the public face.
    return undefined;
  }
}

function serverNameFrom(hello: Buffer): string | undefined {
  // handshake header (4), legacy_version (2), random (32)
  let offset = HANDSHAKE_HEADER + 2 + 32;
  const sessionIdLength = hello.readUInt8(offset);
  offset += 1 + sessionIdLength;
  const cipherSuitesLength = hello.readUInt16BE(offset);
  offset += 2 + cipherSuitesLength;
  const compressionLength = hello.readUInt8(offset);
  offset += 1 + compressionLength;
  if (offset + 2 > hello.length) return undefined;
  const extensionsEnd = Math.min(hello.length, offset + 2 + hello.readUInt16BE(offset));
  offset += 2;
  while (offset + 4 <= extensionsEnd) {
    const type = hello.readUInt16BE(offset);
    const length = hello.readUInt16BE(offset + 2);
    const body = offset + 4;
    if (type === EXTENSION_SERVER_NAME) {
      const listEnd = Math.min(body + 2 + hello.readUInt16BE(body), body + length);
      let entry = body + 2;
      while (entry + 3 <= listEnd) {
        const nameType = hello.readUInt8(entry);
        const nameLength = hello.readUInt16BE(entry + 1);
        if (nameType === NAME_TYPE_HOST && entry + 3 + nameLength <= listEnd) {
          return hello.toString('ascii', entry + 3, entry + 3 + nameLength).toLowerCase();
        }
        entry += 3 + nameLength;
      }
      return undefined;
    }
    offset = body + length;
  }
  return undefined;
}
