import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** The two faces of the one service (docs/api.md). */
export type Face = 'public' | 'mtls';

const mtlsSockets = new WeakSet<TLSSocket>();

export function markMtlsSocket(socket: TLSSocket): void {
  mtlsSockets.add(socket);
}

/** The TLS socket of a connection made on the mTLS face; undefined for any other connection. */
export function mtlsSocketOf(socket: Socket): TLSSocket | undefined {
  return socket instanceof TLSSocket && mtlsSockets.has(socket) ? socket : undefined;
}

/** Which face a connection came in on; connections not made by the TLS listener are public. */
export function faceOfSocket(socket: Socket): Face {
  return mtlsSocketOf(socket) === undefined ? 'public' : 'mtls';
}
