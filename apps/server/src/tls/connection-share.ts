import type { Server } from 'node:http';
import type net from 'node:net';
import { plainAddress } from './peer-address.js';

/**
 * Why the share closed a connection: the address already held its share of unproven ones, the
 * pool was full with nothing to close, or it was closed to make room (an unproven one past its
 * grace, or the longest-idle one).
 */
export type TurnedAwayReason = 'address_share' | 'pool_full' | 'made_room';

export interface ConnectionLimits {
  /** Most connections open at once (`PORTAL_MAX_CONNECTIONS`); absent: no cap. */
  maxConnections?: number | undefined;
  /** Most unproven connections of one address (`PORTAL_MAX_UNPROVEN_PER_ADDRESS`); absent: no bound. */
  maxUnprovenPerAddress?: number | undefined;
  /**
   * How long a connection may stay unproven before a newcomer to a full pool may close it
   * (`UNPROVEN_GRACE_MS` when absent).
   */
  unprovenGraceMs?: number | undefined;
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
  /** When it was accepted (`performance.now()`). */
  acceptedAt: number;
  inFlight: number;
}

/**
 * A TLS handshake and a first request take tens of milliseconds, a slow phone's a few hundred: a
 * connection still unproven after a second is more likely one held open to fill the pool.
 */
export const UNPROVEN_GRACE_MS = 1_000;

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
 * pool is full, the oldest unproven connection past its grace is closed to make room (so a few
 * addresses holding silent connections cannot keep everyone else out until the handshake timeout),
 * else the one idle longest (no request in flight); only when neither is there is the new one
 * closed: a handshake still within its grace and a request in flight are never cut.
 */
export function createConnectionShare(limits: ConnectionLimits): ConnectionShare {
  const { maxConnections, maxUnprovenPerAddress } = limits;
  const graceMs = limits.unprovenGraceMs ?? UNPROVEN_GRACE_MS;
  const turnedAway = (reason: TurnedAwayReason) => limits.turnedAway?.(reason);
  const open = new Map<string, Connection>();
  /** Proven connections with no request in flight, the longest idle first. */
  const idle = new Set<Connection>();
  /** Unproven connections, the oldest first. */
  const unproven = new Set<Connection>();
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
    unproven.delete(connection);
    if (!connection.proven) countUnproven(connection.address, -1);
  };

  /** The connection to close for a newcomer to a full pool, if any may be closed. */
  const roomFrom = (): Connection | undefined => {
    const [oldestUnproven] = unproven;
    if (oldestUnproven !== undefined && performance.now() - oldestUnproven.acceptedAt >= graceMs) {
      return oldestUnproven;
    }
    const [longestIdle] = idle;
    return longestIdle;
  };

  const makeRoom = (): boolean => {
    if (maxConnections === undefined || open.size < maxConnections) return true;
    const closing = roomFrom();
    if (closing === undefined) return false;
    forget(closing);
    closing.socket.destroy();
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
      unproven.delete(connection);
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
      const held = unprovenByAddress.get(address) ?? 0;
      const withinShare = maxUnprovenPerAddress === undefined || held < maxUnprovenPerAddress;
      if (key === undefined || !withinShare || !makeRoom()) {
        socket.destroy();
        if (key !== undefined) turnedAway(withinShare ? 'pool_full' : 'address_share');
        return false;
      }
      const connection: Connection = {
        key,
        address,
        socket,
        proven: false,
        acceptedAt: performance.now(),
        inFlight: 0,
      };
      open.set(key, connection);
      unproven.add(connection);
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
