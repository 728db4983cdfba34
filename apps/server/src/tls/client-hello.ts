/**
 * Reads the server name (SNI) from the first bytes of a TLS connection, so the listener can hand
 * the connection to the face the client asked for before any TLS is spoken: the public face must
 * never send a certificate request, the mTLS face always does (RFC 8446 §4.1.2, RFC 6066 §3).
 */

export type ClientHelloResult =
  { kind: 'incomplete' } | { kind: 'not-tls' } | { kind: 'hello'; serverName: string | undefined };

const RECORD_HEADER = 5;
const CONTENT_TYPE_HANDSHAKE = 0x16;
const HANDSHAKE_CLIENT_HELLO = 0x01;
const EXTENSION_SERVER_NAME = 0x0000;
const NAME_TYPE_HOST = 0x00;
/** A ClientHello larger than this is not one we will wait for. */
export const MAX_CLIENT_HELLO_BYTES = 64 * 1024;

/** Joins the payloads of consecutive handshake records (a hello may be split across records). */
function handshakeBytes(data: Buffer): { bytes: Buffer; complete: boolean } | 'not-tls' {
  const parts: Buffer[] = [];
  let offset = 0;
  let collected = 0;
  let needed: number | undefined;
  while (offset + RECORD_HEADER <= data.length) {
    if (data[offset] !== CONTENT_TYPE_HANDSHAKE || data[offset + 1] !== 0x03) return 'not-tls';
    const length = data.readUInt16BE(offset + 3);
    const start = offset + RECORD_HEADER;
    const payload = data.subarray(start, Math.min(start + length, data.length));
    parts.push(payload);
    collected += payload.length;
    if (needed === undefined && collected >= 4) {
      const head = Buffer.concat(parts);
      if (head[0] !== HANDSHAKE_CLIENT_HELLO) return 'not-tls';
      needed = 4 + head.readUIntBE(1, 3);
    }
    if (needed !== undefined && collected >= needed) {
      return { bytes: Buffer.concat(parts).subarray(0, needed), complete: true };
    }
    if (payload.length < length) break;
    offset = start + length;
  }
  if (data.length > 0 && data[0] !== CONTENT_TYPE_HANDSHAKE) return 'not-tls';
  return { bytes: Buffer.concat(parts), complete: false };
}

function serverNameFrom(hello: Buffer): string | undefined {
  // handshake header (4), legacy_version (2), random (32)
  let offset = 4 + 2 + 32;
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

export function readClientHello(data: Buffer): ClientHelloResult {
  const handshake = handshakeBytes(data);
  if (handshake === 'not-tls') return { kind: 'not-tls' };
  if (!handshake.complete) return { kind: 'incomplete' };
  try {
    return { kind: 'hello', serverName: serverNameFrom(handshake.bytes) };
  } catch {
    // A hello whose lengths point past its end: let the TLS stack reject it on the public face.
    return { kind: 'hello', serverName: undefined };
  }
}
