import type { Server } from 'node:http';
import type net from 'node:net';
import { plainAddress } from './peer-address.js';

/**
 * Why the share closed a connection: the address already held its share of unproven ones, the
 * pool was full with nothing idle to close, or it was the longest-idle one, closed to make room.
 */
export type TurnedAwayReason = 'address_share' | 'pool_full' | 'made_room';

export interface ConnectionLimits {
  /** Most connections open at once (`PORTAL_MAX_CONNECTIONS`); absent: no cap. */
  maxConnections?: number | undefined;
  /** Most unproven connections of one address (`PORTAL_MAX_UNPROVEN_PER_ADDRESS`); absent: no bound. */
  maxUnprovenPerAddress?: number | undefined;
  /** Told of every connection the share closes (the metrics count them). */
  turnedAway?: ((reason: TurnedAwayReason) => void) | undefined;
}

/** Who may keep a connection of one listener: its share of the pool (docs/api.md). */
export interface ConnectionShare {
  /** At accept: keeps `socket`, or destroys it and answers false. */
  admit(socket: net.Socket): boolean;
  /** Follows the requests of `server`, which is handed this listener's connections. */
  watch(server: Server): void;
}

interface Connection {
  key: string;
  address: string;
  /** What to close: the socket the HTTP server reads once a request came, else the accepted one. */
  socket: net.Socket;
  proven: boolean;
  inFlight: number;
}

/**
 * A connection is one TCP connection whatever is wrapped around it (TLS): its two ends name it
 * for the accepted socket and for the TLS socket a request arrives on.
 */
function keyOf(socket: net.Socket): string | undefined {
  const { localAddress, remoteAddress, remotePort } = socket;
  if (localAddress === undefined || remoteAddress === undefined || remotePort === undefined) {
    return undefined;
  }
  return `${localAddress} ${remoteAddress} ${String(remotePort)}`;
}

/**
 * The rule of every listener that takes connections. A connection is *unproven* until its first
 * request has arrived (for TLS, after the handshake); one address may hold at most
 * `maxUnprovenPerAddress` unproven connections, the next is closed at accept. Proven connections
 * count only against `maxConnections`: many members behind one NAT each keep theirs. When the
 * pool is full, the connection that has been idle longest (no request in flight) is closed to make
 * room; only when none is idle is the new one closed.
 */
export function createConnectionShare(limits: ConnectionLimits): ConnectionShare {
  const { maxConnections, maxUnprovenPerAddress } = limits;
  const turnedAway = (reason: TurnedAwayReason) => limits.turnedAway?.(reason);
  const open = new Map<string, Connection>();
  /** Proven connections with no request in flight, the longest idle first. */
  const idle = new Set<Connection>();
  const unprovenByAddress = new Map<string, number>();

  const countUnproven = (address: string, change: number) => {
    const count = (unprovenByAddress.get(address) ?? 0) + change;
    if (count === 0) unprovenByAddress.delete(address);
    else unprovenByAddress.set(address, count);
  };

  const forget = (connection: Connection) => {
    if (open.get(connection.key) !== connection) return;
    open.delete(connection.key);
    idle.delete(connection);
    if (!connection.proven) countUnproven(connection.address, -1);
  };

  const makeRoom = (): boolean => {
    if (maxConnections === undefined || open.size < maxConnections) return true;
    const [longestIdle] = idle;
    if (longestIdle === undefined) return false;
    forget(longestIdle);
    longestIdle.socket.destroy();
    turnedAway('made_room');
    return true;
  };

  const onRequest = (request: { socket: net.Socket }, response: NodeJS.EventEmitter) => {
    const key = keyOf(request.socket);
    const connection = key === undefined ? undefined : open.get(key);
    if (connection === undefined) return;
    if (!connection.proven) {
      connection.proven = true;
      connection.socket = request.socket;
      countUnproven(connection.address, -1);
      request.socket.once('close', () => {
        forget(connection);
      });
    }
    connection.inFlight += 1;
    idle.delete(connection);
    response.once('close', () => {
      connection.inFlight -= 1;
      if (connection.inFlight === 0 && open.get(connection.key) === connection) {
        idle.add(connection);
      }
    });
  };

  return {
    admit(socket) {
      const key = keyOf(socket);
      const address = socket.remoteAddress === undefined ? '' : plainAddress(socket.remoteAddress);
      const unproven = unprovenByAddress.get(address) ?? 0;
      const withinShare = maxUnprovenPerAddress === undefined || unproven < maxUnprovenPerAddress;
      if (key === undefined || !withinShare || !makeRoom()) {
        socket.destroy();
        if (key !== undefined) turnedAway(withinShare ? 'pool_full' : 'address_share');
        return false;
      }
      const connection: Connection = { key, address, socket, proven: false, inFlight: 0 };
      open.set(key, connection);
      countUnproven(address, 1);
      socket.once('close', () => {
        forget(connection);
      });
      return true;
    },
    watch(server) {
      server.on('request', onRequest);
    },
  };
}
